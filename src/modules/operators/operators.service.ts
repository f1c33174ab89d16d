import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../platform/db/database.js';
import { deleteInBatches } from '../../platform/db/delete-in-batches.js';
import type { CreatedKey } from '../../platform/db/keyset.js';
import { conflict, invalidRequest, notFound, rateLimited, unauthorized } from '../../platform/http/errors.js';
import type { RateLimitStore } from '../../platform/http/rate-limit.js';
import { isUuid, newId } from '../../platform/ids.js';
import { DUMMY_HASH, hashPassword, needsRehash, verifyPassword } from '../stores/index.js';
import * as repo from './operators.repository.js';

export const OPERATOR_SESSION_TTL_MS = 12 * 3600_000;
/** The dashboard's sign-in limits (admin.service.ts), for the same reasons. */
const LOGIN_WINDOW_MS = 15 * 60_000;
const LOGIN_LIMITS = { perEmail: 10, perIp: 50 };
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const TOKEN_PREFIX = 'os_';

const hashToken = (token: string) => createHash('sha256').update(token).digest();

export interface Operator {
  id: string;
  email: string;
}

/** Who acts, as the store's audit log names an operator (actor `system`, name `operator <email>`). */
export interface ByOperator {
  by: { operatorEmail: string };
}

/**
 * The stores module's lifecycle service (suspension and deletion), as far as operators use it: each
 * answers 404 for an unknown or deleting store and 409 where the state forbids the change.
 */
export interface StoreLifecyclePort {
  suspend(storeId: string, reason: string, options: ByOperator): Promise<unknown>;
  unsuspend(storeId: string, options: ByOperator): Promise<unknown>;
  requestDeletion(storeId: string, options: ByOperator): Promise<unknown>;
}

export interface StoreListRequest {
  q?: string;
  limit: number;
  after?: CreatedKey;
}

export function createOperatorsService(deps: {
  db: Db;
  rateLimits: RateLimitStore;
  lifecycle: StoreLifecyclePort;
}) {
  const { db } = deps;

  async function limit(key: string, max: number) {
    const { count, retryInMs } = await deps.rateLimits.hitSliding(key, LOGIN_WINDOW_MS, max);
    if (count > max) throw rateLimited(Math.max(1, Math.ceil(retryInMs / 1000)));
  }

  /**
   * The operator with this e-mail and password, or undefined; as the dashboard's authenticateAdmin:
   * an unknown e-mail costs the same scrypt as a wrong password, a weak hash is replaced at a good
   * sign-in and a failed one against it pays for a current hash too.
   */
  async function authenticate(email: string, password: string): Promise<Operator | undefined> {
    const operator = await repo.findOperatorByEmail(db, email);
    const stored = operator?.password_hash ?? DUMMY_HASH;
    const ok = await verifyPassword(password, stored);
    const weak = needsRehash(stored);
    if (!operator || !ok) {
      if (weak) await verifyPassword(password, DUMMY_HASH);
      return undefined;
    }
    if (weak) await repo.replaceOperatorPasswordHash(db, operator.id, stored, await hashPassword(password));
    await repo.touchOperatorLogin(db, operator.id);
    return { id: operator.id, email: operator.email };
  }

  async function requireItem(id: string) {
    const [row] = isUuid(id) ? await repo.selectStoreItems(db, { id }) : [];
    if (!row) throw notFound('store');
    return row;
  }

  return {
    /** `emporium operator create`: 409 for an e-mail already taken (any case). */
    async createOperator(input: { email: string; password: string }): Promise<Operator> {
      const email = input.email.trim().toLowerCase();
      if (!EMAIL.test(email)) throw invalidRequest('email is not a valid e-mail address');
      if (input.password.length < 8) throw invalidRequest('password must be at least 8 characters');
      if (await repo.findOperatorByEmail(db, email))
        throw conflict('an operator with this e-mail already exists');
      const row = await repo.insertOperator(db, {
        id: newId(),
        email,
        password_hash: await hashPassword(input.password),
      });
      return { id: row.id, email: row.email };
    },

    async login(input: { email: string; password: string }, ip: string) {
      const email = input.email.trim().toLowerCase();
      await limit(`operator-login-ip:${ip}`, LOGIN_LIMITS.perIp);
      await limit(`operator-login:${email}`, LOGIN_LIMITS.perEmail);
      const operator = await authenticate(email, input.password);
      if (!operator) throw unauthorized('Wrong e-mail or password');
      const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
      const expiresAt = new Date(Date.now() + OPERATOR_SESSION_TTL_MS);
      await repo.insertOperatorSession(db, {
        id: newId(),
        operator_id: operator.id,
        token_hash: hashToken(token),
        expires_at: expiresAt,
      });
      return { token, expiresAt, operator };
    },

    /** The operator of a session cookie, or undefined (unknown, expired, or not an operator token). */
    async resolveSession(token: string): Promise<Operator | undefined> {
      if (!token.startsWith(TOKEN_PREFIX) || token.length > 100) return undefined;
      return repo.findOperatorSession(db, hashToken(token));
    },

    logout: (token: string) => repo.deleteOperatorSession(db, hashToken(token)),

    /** A page of the store list: `limit` rows and whether more follow. */
    async listStores(request: StoreListRequest) {
      const q = request.q?.trim() || undefined;
      const rows = await repo.selectStoreItems(db, { q, after: request.after, limit: request.limit + 1 });
      const more = rows.length > request.limit;
      return { rows: rows.slice(0, request.limit), more };
    },

    getStore: requireItem,

    async suspend(operator: Operator, storeId: string, reason: string) {
      const trimmed = reason.trim();
      if (!trimmed)
        throw invalidRequest('reason must not be empty', [{ field: 'reason', message: 'must not be empty' }]);
      const store = await requireItem(storeId);
      await deps.lifecycle.suspend(store.id, trimmed, { by: { operatorEmail: operator.email } });
      return requireItem(store.id);
    },

    async unsuspend(operator: Operator, storeId: string) {
      const store = await requireItem(storeId);
      await deps.lifecycle.unsuspend(store.id, { by: { operatorEmail: operator.email } });
      return requireItem(store.id);
    },

    /** Marks the store `deleting` (it leaves the list at once); the job runner removes its data. */
    async requestDeletion(operator: Operator, storeId: string) {
      const store = await requireItem(storeId);
      await deps.lifecycle.requestDeletion(store.id, { by: { operatorEmail: operator.email } });
      return { id: store.id, status: 'deleting' as const };
    },
  };
}

export type OperatorsService = ReturnType<typeof createOperatorsService>;

/** Deletes expired operator sessions in bounded batches; beside the dashboard's, in the worker's prune. */
export async function pruneExpiredOperatorSessions(
  db: Db,
  options: { batchSize: number; signal?: AbortSignal },
) {
  return {
    operator_sessions: await deleteInBatches(
      (limit) => repo.deleteExpiredOperatorSessions(db, new Date(), limit),
      options,
    ),
  };
}
