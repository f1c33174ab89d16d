import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../platform/db/database.js';
import { deleteInBatches } from '../../platform/db/delete-in-batches.js';
import type { RequestContext } from '../../platform/http/context.js';
import { forbidden, rateLimited, unauthorized } from '../../platform/http/errors.js';
import type { RateLimitStore } from '../../platform/http/rate-limit.js';
import { isScope, SCOPES, type Scope } from '../../platform/http/scopes.js';
import { newId } from '../../platform/ids.js';
import type { StoresService } from '../stores/index.js';
import * as repo from './admin.repository.js';
import type { AdminSessionView } from './admin.schemas.js';

export const ADMIN_SESSION_TTL_MS = 12 * 3600_000;
const LOGIN_WINDOW_MS = 15 * 60_000;
const LOGIN_LIMITS = { perEmail: 10, perIp: 50 };

const hashToken = (token: string) => createHash('sha256').update(token).digest();

/**
 * Dashboard sign-in: e-mail + password (scrypt), rate limited; sessions hashed, one store each, with
 * the rights of the user's membership there (contract §14).
 */
export function createAdminService(deps: { db: Db; stores: StoresService; rateLimits: RateLimitStore }) {
  const { db, stores } = deps;

  async function limit(key: string, max: number) {
    const { count, retryInMs } = await deps.rateLimits.hitSliding(key, LOGIN_WINDOW_MS, max);
    if (count > max) throw rateLimited(Math.max(1, Math.ceil(retryInMs / 1000)));
  }

  /** E-mail and password, counted by the sign-in limits (per address, per e-mail) before the scrypt. */
  async function authenticate(rawEmail: string, password: string, ip: string) {
    const email = rawEmail.trim().toLowerCase();
    await limit(`admin-login-ip:${ip}`, LOGIN_LIMITS.perIp);
    await limit(`admin-login:${email}`, LOGIN_LIMITS.perEmail);
    const user = await stores.authenticateAdmin(email, password);
    if (!user) throw unauthorized('Wrong e-mail or password');
    return user;
  }

  /** A new session of the user on the store (slug; default: their first), 403 when not a member. */
  async function openSession(userId: string, storeSlug?: string) {
    const [user, available] = await Promise.all([stores.findAdminUser(userId), stores.storesOfAdmin(userId)]);
    if (!user) throw unauthorized('The session is invalid');
    const store = storeSlug ? available.find((s) => s.slug === storeSlug) : available[0];
    if (!store) throw forbidden(storeSlug ? `No access to the store ${storeSlug}` : 'This user has no store');
    const token = `as_${randomBytes(32).toString('base64url')}`;
    const expiresAt = new Date(Date.now() + ADMIN_SESSION_TTL_MS);
    await repo.insertSession(db, {
      id: newId(),
      admin_user_id: user.id,
      store_id: store.id,
      token_hash: hashToken(token),
      expires_at: expiresAt,
    });
    const view: AdminSessionView = {
      user,
      store,
      stores: available,
      role: store.role,
      permissions: effectiveScopes(
        store.role,
        (await repo.findMembership(db, user.id, store.id))?.permissions,
      ),
    };
    return { token, expiresAt, view };
  }

  return {
    authenticate,
    openSession,

    async login(input: { email: string; password: string; store?: string }, ip: string) {
      const user = await authenticate(input.email, input.password, ip);
      return openSession(user.id, input.store);
    },

    /** Another store of the same user: a new session (a fresh token), the old one deleted. */
    async switchStore(ctx: RequestContext, currentToken: string, storeSlug: string) {
      const session = await openSession(ctx.actor.id, storeSlug);
      await repo.deleteSession(db, hashToken(currentToken));
      return session;
    },

    /**
     * The request context of a dashboard session, read on every request (no cache): its member's
     * role, scopes (an owner: every scope; staff: those granted) and name for the audit log.
     */
    async resolveSession(token: string): Promise<RequestContext | undefined> {
      if (!token.startsWith('as_') || token.length > 100) return undefined;
      const session = await repo.findSession(db, hashToken(token));
      if (!session) return undefined;
      return {
        storeId: session.store_id,
        actor: { kind: 'admin_user', id: session.admin_user_id },
        source: 'admin',
        role: session.role,
        scopes: effectiveScopes(session.role, session.permissions),
        actorName: session.name ?? session.email,
      };
    },

    logout: (token: string) => repo.deleteSession(db, hashToken(token)),

    async me(ctx: RequestContext): Promise<AdminSessionView> {
      const [user, available, store] = await Promise.all([
        stores.findAdminUser(ctx.actor.id),
        stores.storesOfAdmin(ctx.actor.id),
        stores.getStore(ctx.storeId),
      ]);
      if (!user) throw unauthorized('The session is invalid');
      return { user, store, stores: available, role: ctx.role ?? 'owner', permissions: ctx.scopes };
    },
  };
}

/** An owner holds every scope; a staff member the granted ones that are still scopes. */
export function effectiveScopes(role: 'owner' | 'staff', permissions: readonly string[] = []): Scope[] {
  return role === 'owner' ? [...SCOPES] : permissions.filter(isScope);
}

export type AdminService = ReturnType<typeof createAdminService>;

/** Deletes expired dashboard sessions in bounded batches; for the background worker's schedule. */
export async function pruneExpiredAdminSessions(
  db: Db,
  options: { batchSize: number; signal?: AbortSignal },
) {
  return {
    admin_sessions: await deleteInBatches(
      (limit) => repo.deleteExpiredSessions(db, new Date(), limit),
      options,
    ),
  };
}
