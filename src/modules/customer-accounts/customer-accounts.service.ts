import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/database.js';
import { deleteInBatches } from '../../platform/db/delete-in-batches.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { AppError, unauthorized } from '../../platform/http/errors.js';
import type { RateLimitStore } from '../../platform/http/rate-limit.js';
import { newId } from '../../platform/ids.js';
import type { Mailer } from '../../platform/mail.js';
import type { CustomersService } from '../customers/index.js';
import type { StoreRow } from '../stores/index.js';
import * as repo from './customer-accounts.repository.js';
import { createRequestLimiter, REQUEST_LIMITS, REQUEST_WINDOW_MS } from './request-limits.js';

export const CODE_TTL_MS = 10 * 60_000;
export const SESSION_TTL_MS = 30 * 86_400_000;
const MAX_WRONG_TRIES = 5;
const WINDOW_MS = REQUEST_WINDOW_MS;
const LIMITS = REQUEST_LIMITS;

export interface CustomerAccountsDeps {
  db: Db;
  customers: CustomersService;
  mailer: Mailer;
  rateLimits: RateLimitStore;
  appSecret: string;
  logger: Logger;
}

export interface CustomerSession {
  storeId: string;
  customerId: string;
  sessionId: string;
}

const normalise = (email: string) => email.trim().toLowerCase();
export const hashToken = (token: string) => createHash('sha256').update(token).digest();

function loginMail(store: StoreRow, code: string) {
  const minutes = CODE_TTL_MS / 60_000;
  const text = `Your ${store.name} login code is ${code}.\n\nIt is valid for ${minutes} minutes. If you did not ask for it, ignore this e-mail: nobody can log in without the code.\n`;
  const escapeHtml = (s: string) =>
    s.replace(
      /[&<>"']/g,
      (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
    );
  const html = `<!doctype html><html><body style="font-family:sans-serif;color:#111"><p>Your <strong>${escapeHtml(store.name)}</strong> login code is</p><p style="font-size:28px;letter-spacing:6px;font-weight:bold">${code}</p><p>It is valid for ${minutes} minutes. If you did not ask for it, ignore this e-mail.</p></body></html>`;
  return { subject: `${code} is your ${store.name} login code`, text, html };
}

/**
 * E-mail one-time-code login and customer sessions. Codes: 6 digits, 10 minutes, stored as an HMAC
 * under APP_SECRET, 5 wrong tries; requests limited per e-mail (in the database, so every process
 * agrees; counted and inserted under a per-e-mail lock, so a burst cannot pass it) and per client IP (the shared rate-limit store). The answers never tell whether an
 * e-mail is known.
 */
export function createCustomerAccountsService(deps: CustomerAccountsDeps) {
  const { db } = deps;
  const codeHash = (storeId: string, email: string, code: string) =>
    createHmac('sha256', deps.appSecret).update(`${storeId}:${email}:${code}`).digest();

  const limiter = createRequestLimiter(deps.rateLimits);
  const limitIp = (kind: 'request' | 'verify', ip: string, max: number) =>
    limiter.perAddress(`otp-${kind}`, ip, max);

  return {
    async requestCode(store: StoreRow, rawEmail: string, ip: string) {
      const email = normalise(rawEmail);
      await limitIp('request', ip, LIMITS.requestsPerIp);
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await inTransaction(db, async (tx) => {
        await repo.lockCodeRequests(tx, store.id, email);
        const recent = await repo.codesRequestedSince(tx, store.id, email, new Date(Date.now() - WINDOW_MS));
        if (recent >= LIMITS.perEmail)
          throw new AppError(
            429,
            'rate_limited',
            'Too many codes requested for this e-mail; try again later',
            undefined,
            { 'retry-after': String(WINDOW_MS / 1000) },
          );
        await repo.insertCode(tx, {
          id: newId(),
          store_id: store.id,
          email,
          code_hash: codeHash(store.id, email, code),
          expires_at: new Date(Date.now() + CODE_TTL_MS),
        });
      });
      // Sent after answering: the response time says nothing about the e-mail or the mail server.
      const mail = loginMail(store, code);
      void deps.mailer
        .send({ to: email, ...mail })
        .catch((error) =>
          deps.logger.error({ err: error, storeId: store.id }, 'could not send a login code'),
        );
    },

    /** A correct code opens a new session (a fresh token: no session fixation). */
    async verify(store: StoreRow, rawEmail: string, code: string, ip: string) {
      const email = normalise(rawEmail);
      await limitIp('verify', ip, LIMITS.verificationsPerIp);
      const verdict = await db.transaction().execute(async (tx) => {
        const latest = await repo.latestCodeForUpdate(tx, store.id, email);
        if (!latest || latest.consumed_at || latest.expires_at.getTime() <= Date.now()) return 'invalid';
        if (latest.attempts >= MAX_WRONG_TRIES) return 'locked';
        const given = codeHash(store.id, email, code);
        if (!timingSafeEqual(given, latest.code_hash)) {
          await repo.countWrongAttempt(tx, latest.id);
          return latest.attempts + 1 >= MAX_WRONG_TRIES ? 'locked' : 'invalid';
        }
        await repo.consumeCode(tx, latest.id);
        return 'ok';
      });
      if (verdict === 'locked') throw unauthorized('Too many wrong codes: request a new one');
      if (verdict !== 'ok') throw unauthorized('The code is invalid or has expired');
      const customer = await db.transaction().execute(async (tx) => {
        const found = await deps.customers.findOrCreate(tx, store.id, { email });
        return found;
      });
      const token = `cs_${randomBytes(32).toString('base64url')}`;
      const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
      await repo.insertSession(db, {
        id: newId(),
        store_id: store.id,
        customer_id: customer.id,
        token_hash: hashToken(token),
        expires_at: expiresAt,
      });
      return { token, expiresAt, customer };
    },

    async resolveSession(token: string): Promise<CustomerSession | undefined> {
      if (!token.startsWith('cs_') || token.length > 100) return undefined;
      const session = await repo.findSession(db, hashToken(token));
      return session
        ? { storeId: session.store_id, customerId: session.customer_id, sessionId: session.id }
        : undefined;
    },

    logout: (token: string) => repo.deleteSession(db, hashToken(token)),
  };
}

export type CustomerAccountsService = ReturnType<typeof createCustomerAccountsService>;

/** Expired login codes are kept a day (the per-e-mail request limit counts recent codes). */
const CODE_KEPT_MS = 86_400_000;

/**
 * Deletes expired login codes (a day after they expire) and expired sessions, in bounded batches;
 * for the background worker's schedule. Safe to run in several workers at once.
 */
export async function pruneExpiredLogins(db: Db, options: { batchSize: number; signal?: AbortSignal }) {
  const codes = await deleteInBatches(
    (limit) => repo.deleteExpiredLoginCodes(db, new Date(Date.now() - CODE_KEPT_MS), limit),
    options,
  );
  const sessions = await deleteInBatches(
    (limit) => repo.deleteExpiredSessions(db, new Date(), limit),
    options,
  );
  return { customer_login_codes: codes, customer_sessions: sessions };
}
