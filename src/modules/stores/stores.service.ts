import type { Logger } from 'pino';
import type { Db, Executor } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { conflict, invalidRequest, notFound } from '../../platform/http/errors.js';
import {
  contentEtag,
  type IfMatch,
  nextVersionTime,
  requireMatch,
  requireTag,
} from '../../platform/http/etag.js';
import { isScope, type Scope } from '../../platform/http/scopes.js';
import { recordIdempotentResource } from '../../platform/idempotency.js';
import { isUuid, newId } from '../../platform/ids.js';
import { currencyDecimals } from '../../platform/money.js';
import { TtlCache } from '../../platform/ttl-cache.js';
import { ApiKeyCache } from './api-key-cache.js';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key-secret.js';
import * as keys from './api-keys.repository.js';
import { CustomDomainDirectory, hostOfHeader, parseCustomDomain } from './custom-domains.js';
import { DUMMY_HASH, hashPassword, needsRehash, verifyPassword } from './passwords.js';
import { StoreClosedError } from './store-closed.js';
import { contactEmail, currencyCode, isTimezone, parseLogo, parseScopes } from './store-input.js';
import * as stores from './stores.repository.js';
import type { CreateStoreInput, StoreSettingsPatch, StoresOptions } from './stores.types.js';

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** A key's last_used_at is written at most this often, so authentication stays read-only. */
const TOUCH_INTERVAL_MS = 60_000;
const STORE_CACHE_MS = 5_000;
/** A store read all the time is loaded again this long before its 5 s end, in the background. */
const STORE_REFRESH_AHEAD_MS = 1_000;

export type StoreRow = NonNullable<Awaited<ReturnType<typeof stores.findStoreById>>>;

export function createStoresService(db: Db, log?: Logger, options: StoresOptions = {}) {
  const cache = new ApiKeyCache();
  // Active stores by slug (every storefront and shop request asks). Refreshed ahead of expiry: at
  // its expiry every request in flight waited for the store's query (on a busy storefront, 50 at
  // once every 5 s: the list's p99).
  const storeById = new Map<string, { store: StoreRow; expiresAt: number }>();
  const activeBySlug = new TtlCache<StoreRow>({
    ttlMs: STORE_CACHE_MS,
    maxEntries: 10_000,
    refreshAheadMs: STORE_REFRESH_AHEAD_MS,
  });
  const domainCache = new TtlCache<StoreRow | undefined>({ ttlMs: STORE_CACHE_MS, maxEntries: 10_000 });
  const domains = new CustomDomainDirectory(() => stores.listCustomDomains(db), log);
  const publicUrl = options.publicUrl ? new URL(options.publicUrl) : undefined;
  // A page served over http is trusted only where the deployment itself is plain http (development).
  const domainSchemes = publicUrl?.protocol === 'http:' ? ['https', 'http'] : ['https'];
  if (options.watchDomains) domains.start();
  /** A store changed: every cached copy of it goes (the caches are small and changes rare). */
  const forgetStores = () => {
    storeById.clear();
    activeBySlug.clear();
    domainCache.clear();
  };
  const lastTouched = new Map<string, number>();

  function hasOrders(storeId: string): Promise<boolean> {
    // Only the worker builds this service without it, and it never reads or changes settings.
    if (!options.hasOrders) throw new Error('the stores service was built without hasOrders');
    return options.hasOrders(storeId);
  }

  /**
   * A new currency needs the same minor-unit digits (stored prices would change meaning) and a
   * store without orders: past orders keep their currency, but overview, analytics and customers'
   * totals sum them under the store's, so dollars would be shown as euros (Shopify refuses too).
   */
  async function refuseCurrencyChange(storeId: string, from: string, to: string) {
    if (currencyDecimals(to) !== currencyDecimals(from))
      throw conflict(`${to} has other minor units than ${from}: existing prices would change meaning`);
    if (await hasOrders(storeId))
      throw conflict(
        `the currency cannot change once the store has orders: their amounts are in ${from}, and reports would show them as ${to}`,
      );
  }

  function touch(keyId: string) {
    const now = Date.now();
    if ((lastTouched.get(keyId) ?? 0) + TOUCH_INTERVAL_MS > now) return;
    lastTouched.set(keyId, now);
    keys.touchApiKey(db, keyId).catch((error) => log?.warn({ err: error }, 'could not record API key use'));
  }

  return {
    async createStore(input: CreateStoreInput) {
      if (!SLUG.test(input.slug)) {
        throw invalidRequest('slug must be 1-63 lowercase letters, digits or hyphens');
      }
      if (!input.name.trim()) throw invalidRequest('name must not be empty');
      const currency = currencyCode(input.currency ?? 'USD');
      const timezone = input.timezone ?? 'UTC';
      if (!isTimezone(timezone)) throw invalidRequest(`unknown timezone ${timezone}`);
      const now = new Date();
      return stores.insertStore(db, {
        id: newId(),
        slug: input.slug,
        name: input.name.trim(),
        currency,
        timezone,
        created_at: now,
        updated_at: now,
      });
    },

    async requireStoreBySlug(slug: string) {
      const store = await stores.findStoreBySlug(db, slug);
      if (!store) throw notFound(`store ${slug}`);
      return store;
    },

    countStores: () => stores.countStores(db),

    /** A storefront's store by slug (cached like getStore); suspended 503, disabled or unknown 404. */
    async getActiveStoreBySlug(slug: string): Promise<StoreRow> {
      // Only active stores are kept: an unknown or disabled one is asked again at each request.
      return activeBySlug.getOrLoad(slug, async () => {
        const store = await stores.findStoreBySlug(db, slug);
        if (store?.status === 'suspended') throw new StoreClosedError(store.name);
        if (store?.status !== 'active') throw notFound('store');
        return store;
      });
    },

    /**
     * The active store whose web shop answers on this Host header (any port, any case), or
     * undefined; cached for a few seconds, unknown hosts included, and forgotten at this process's
     * own change.
     */
    async findActiveStoreByDomain(host: string): Promise<StoreRow | undefined> {
      const name = hostOfHeader(host);
      if (!name) return undefined;
      return domainCache.getOrLoad(name, async () => {
        const store = await stores.findStoreByCustomDomain(db, name);
        return store?.status === 'active' ? store : undefined;
      });
    },

    /** The origins a store's custom domain adds for its sessions' writes (synchronous: in memory). */
    customDomainOrigins(storeId: string): string[] {
      const domain = domains.domainOf(storeId);
      return domain ? domainSchemes.map((scheme) => `${scheme}://${domain}`) : [];
    },

    /**
     * The slug of the store whose shop a request's host name is (synchronous: the in-memory
     * directory; the server asks it before routing each request, see shop/custom-domains.ts).
     */
    slugOfCustomDomain: (host: string) => domains.slugOfDomain(host),

    /** A store's status changed (store-lifecycle.ts): cached copies go; a deleted store's domain at once. */
    storeStatusChanged(store: StoreRow) {
      forgetStores();
      const routed = store.status === 'active' || store.status === 'suspended';
      domains.changed(store.id, store.slug, routed ? store.custom_domain : null);
    },

    /** Ends the refreshes that `watchDomains` started. */
    stopCustomDomains: () => domains.stop(),

    /** The dashboard's settings: the store and whether it has orders (its currency is then fixed). */
    async getSettings(storeId: string) {
      // Not the cached row: its updated_at is the ETag a settings form sends back.
      const store = await stores.findStoreById(db, storeId);
      if (!store) throw notFound('store');
      return { ...store, has_orders: await hasOrders(storeId) };
    },

    /**
     * Store profile, pricing and stock settings (money in minor units; tax in basis points). The
     * currency changes only while the store has no order (see refuseCurrencyChange).
     */
    async updateSettings(storeId: string, patch: StoreSettingsPatch, ifMatch?: IfMatch) {
      const current = await this.getStore(storeId);
      const { colors, custom_domain, ...rest } = patch;
      const domain =
        custom_domain === undefined
          ? undefined
          : parseCustomDomain(custom_domain, {
              publicHost: publicUrl?.hostname,
              stored: current.custom_domain,
            });
      if (rest.name !== undefined && !rest.name.trim()) throw invalidRequest('name must not be empty');
      if (rest.currency !== undefined) {
        rest.currency = currencyCode(rest.currency);
        if (rest.currency === current.currency) delete rest.currency;
        else await refuseCurrencyChange(storeId, current.currency, rest.currency);
      }
      if (rest.timezone !== undefined && !isTimezone(rest.timezone))
        throw invalidRequest(`unknown timezone ${rest.timezone}`);
      if (rest.contact_email !== undefined) rest.contact_email = contactEmail(rest.contact_email);
      const logo = rest.logo === undefined ? undefined : parseLogo(rest.logo);
      await inTransaction(db, async (tx) => {
        const locked = await stores.lockStore(tx, storeId);
        if (!locked) throw notFound('store');
        requireMatch(ifMatch, locked);
        await stores.updateStore(tx, storeId, {
          ...rest,
          ...(rest.name !== undefined ? { name: rest.name.trim() } : {}),
          ...(logo !== undefined ? { logo } : {}),
          ...(colors !== undefined ? { colors: JSON.stringify(colors) } : {}),
          ...(domain !== undefined ? { custom_domain: domain } : {}),
          updated_at: nextVersionTime(locked.updated_at),
        });
      });
      forgetStores();
      if (domain !== undefined)
        domains.changed(storeId, current.slug, current.status === 'active' ? domain : null);
      return this.getSettings(storeId);
    },

    /**
     * The admin user with this e-mail and password, or undefined. A wrong e-mail costs the same
     * scrypt as a wrong password, so timing does not reveal which accounts exist. A hash made with
     * weaker parameters than today's is replaced at a successful sign-in (the only moment the
     * password is known); a failed one against it also pays for a current hash, so that it is not
     * the fast answer that marks an existing account.
     */
    async authenticateAdmin(email: string, password: string) {
      const user = await stores.findAdminUserByEmail(db, email);
      const stored = user?.password_hash ?? DUMMY_HASH;
      const ok = await verifyPassword(password, stored);
      const weak = needsRehash(stored);
      if (!user || !ok) {
        if (weak) await verifyPassword(password, DUMMY_HASH);
        return undefined;
      }
      if (weak) {
        // Only if the hash is still the one just checked: a password changed meanwhile wins.
        await stores.replacePasswordHash(db, user.id, stored, await hashPassword(password));
      }
      await stores.touchAdminLogin(db, user.id);
      return { id: user.id, email: user.email, name: user.name };
    },

    storesOfAdmin: (adminUserId: string) => stores.storesOfAdmin(db, adminUserId),
    findAdminUser: (id: string) => stores.findAdminUser(db, id),

    /** Where notices for a store's merchants go (a webhook disabled, …). */
    adminEmails: (storeId: string) => stores.adminEmails(db, storeId),

    /** Who stands in for a missing contact e-mail: the store's owner (else its first admin). */
    ownerEmail: (storeId: string) => stores.ownerEmail(db, storeId),

    /** Saves the app config if If-Match names the stored one (compared under the store's lock). */
    async saveAppConfig(storeId: string, appConfig: Record<string, unknown>, ifMatch?: IfMatch) {
      await inTransaction(db, async (tx) => {
        const locked = await stores.lockStore(tx, storeId);
        if (!locked) throw notFound('store');
        requireTag(ifMatch, contentEtag(locked.app_config));
        await stores.updateStore(tx, storeId, {
          app_config: JSON.stringify(appConfig),
          updated_at: nextVersionTime(locked.updated_at),
        });
      });
      forgetStores();
      return (await stores.findStoreById(db, storeId))?.app_config ?? {};
    },

    /**
     * Store settings (currency, thresholds, …), cached for a few seconds: read on most requests.
     * Pass the caller's transaction when there is one: a pool connection requested from inside a
     * transaction can wait forever once every connection is held by such transactions.
     */
    async getStore(storeId: string, executor: Executor = db): Promise<StoreRow> {
      const cached = storeById.get(storeId);
      if (cached && cached.expiresAt > Date.now()) return cached.store;
      const store = await stores.findStoreById(executor, storeId);
      if (!store) throw notFound('store');
      if (storeById.size > 10_000) storeById.clear();
      storeById.set(storeId, { store, expiresAt: Date.now() + STORE_CACHE_MS });
      return store;
    },

    async createAdminUser(input: { email: string; password: string; storeSlug: string }) {
      if (!EMAIL.test(input.email)) throw invalidRequest('email is not a valid e-mail address');
      if (input.password.length < 8) throw invalidRequest('password must be at least 8 characters');
      const store = await this.requireStoreBySlug(input.storeSlug);
      const passwordHash = await hashPassword(input.password);
      return inTransaction(db, async (tx) => {
        const existing = await stores.findAdminUserByEmail(tx, input.email);
        if (existing) throw conflict('a user with this e-mail already exists');
        const user = await stores.insertAdminUser(tx, {
          id: newId(),
          email: input.email.toLowerCase(),
          password_hash: passwordHash,
        });
        await stores.grantStoreAccess(tx, store.id, user.id);
        return { ...user, store_id: store.id };
      });
    },

    async createApiKey(storeId: string, input: { name?: string; scopes: string[] | 'all' }) {
      const scopes = parseScopes(input.scopes);
      const raw = generateApiKey();
      const id = newId();
      const row = await inTransaction(db, async (tx) => {
        await recordIdempotentResource(tx, undefined, { type: 'api_key', id }); // the audit row's resource
        return keys.insertApiKey(tx, {
          id,
          store_id: storeId,
          name: input.name?.trim() || 'API key',
          key_prefix: displayPrefix(raw),
          key_hash: hashApiKey(raw),
          scopes,
        });
      });
      return {
        key: raw,
        id: row.id,
        name: row.name,
        scopes: row.scopes as Scope[],
        created_at: row.created_at,
      };
    },

    listApiKeys: (storeId: string) => keys.listApiKeys(db, storeId),

    async revokeApiKey(storeId: string, id: string) {
      const revoked = isUuid(id) ? await keys.revokeApiKey(db, storeId, id) : undefined;
      if (!revoked) throw notFound('API key');
      cache.evictKey(id);
    },

    /** The CLI's revoke, which names a key by id only. */
    async revokeApiKeyById(id: string) {
      const storeId = await keys.findApiKeyStoreId(db, id);
      if (!storeId) throw notFound('API key');
      await this.revokeApiKey(storeId, id);
    },

    async resolveApiKey(raw: string): Promise<RequestContext | undefined> {
      // Cheap shape check first: garbage never reaches the database.
      if (!raw.startsWith('sk_') || raw.length < 40 || raw.length > 100) return undefined;
      const hash = hashApiKey(raw);
      const hashHex = hash.toString('hex');
      let entry = cache.get(hashHex);
      if (!entry) {
        const row = await keys.findActiveApiKeyByHash(db, hash);
        const ctx: RequestContext | undefined = row
          ? {
              storeId: row.store_id,
              actor: { kind: 'api_key', id: row.id },
              source: 'api',
              scopes: row.scopes.filter(isScope),
              actorName: row.name,
            }
          : undefined;
        cache.set(hashHex, ctx);
        entry = { ctx, expiresAt: 0 };
      }
      if (entry.ctx) touch(entry.ctx.actor.id);
      return entry.ctx;
    },
  };
}

export type StoresService = ReturnType<typeof createStoresService>;
