import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../platform/db/database.js';
import { deleteInBatches } from '../../platform/db/delete-in-batches.js';
import type { RequestContext } from '../../platform/http/context.js';
import { forbidden, rateLimited, unauthorized } from '../../platform/http/errors.js';
import type { RateLimitStore } from '../../platform/http/rate-limit.js';
import { SCOPES } from '../../platform/http/scopes.js';
import { newId } from '../../platform/ids.js';
import type { StoresService } from '../stores/index.js';
import * as repo from './admin.repository.js';

export const ADMIN_SESSION_TTL_MS = 12 * 3600_000;
const LOGIN_WINDOW_MS = 15 * 60_000;
const LOGIN_LIMITS = { perEmail: 10, perIp: 50 };

const hashToken = (token: string) => createHash('sha256').update(token).digest();

/** Dashboard sign-in: e-mail + password (scrypt), rate limited; sessions hashed, one store each. */
export function createAdminService(deps: { db: Db; stores: StoresService; rateLimits: RateLimitStore }) {
  const { db, stores } = deps;

  async function limit(key: string, max: number) {
    const { count, retryInMs } = await deps.rateLimits.hitSliding(key, LOGIN_WINDOW_MS, max);
    if (count > max) throw rateLimited(Math.max(1, Math.ceil(retryInMs / 1000)));
  }

  return {
    async login(input: { email: string; password: string; store?: string }, ip: string) {
      const email = input.email.trim().toLowerCase();
      await limit(`admin-login-ip:${ip}`, LOGIN_LIMITS.perIp);
      await limit(`admin-login:${email}`, LOGIN_LIMITS.perEmail);
      const user = await stores.authenticateAdmin(email, input.password);
      if (!user) throw unauthorized('Wrong e-mail or password');
      const available = await stores.storesOfAdmin(user.id);
      const store = input.store ? available.find((s) => s.slug === input.store) : available[0];
      if (!store)
        throw forbidden(input.store ? `No access to the store ${input.store}` : 'This user has no store');
      const { token, expiresAt } = await this.openSession(user.id, store.id);
      return { token, expiresAt, user, store, stores: available };
    },

    /** A new dashboard session (a fresh token) of a user in one of their stores: sign-in and sign-up. */
    async openSession(adminUserId: string, storeId: string) {
      const token = `as_${randomBytes(32).toString('base64url')}`;
      const expiresAt = new Date(Date.now() + ADMIN_SESSION_TTL_MS);
      await repo.insertSession(db, {
        id: newId(),
        admin_user_id: adminUserId,
        store_id: storeId,
        token_hash: hashToken(token),
        expires_at: expiresAt,
      });
      return { token, expiresAt };
    },

    /** The request context of a dashboard session: every scope of its store, events with source admin. */
    async resolveSession(token: string): Promise<RequestContext | undefined> {
      if (!token.startsWith('as_') || token.length > 100) return undefined;
      const session = await repo.findSession(db, hashToken(token));
      if (!session) return undefined;
      return {
        storeId: session.store_id,
        actor: { kind: 'admin_user', id: session.admin_user_id },
        source: 'admin',
        scopes: [...SCOPES],
      };
    },

    logout: (token: string) => repo.deleteSession(db, hashToken(token)),

    async me(ctx: RequestContext) {
      const [user, available, store] = await Promise.all([
        stores.findAdminUser(ctx.actor.id),
        stores.storesOfAdmin(ctx.actor.id),
        stores.getStore(ctx.storeId),
      ]);
      if (!user) throw unauthorized('The session is invalid');
      return { user, store, stores: available };
    },
  };
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
