import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/database.js';
import { deleteInBatches } from '../../platform/db/delete-in-batches.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { AppError, forbidden, invalidRequest, unauthorized } from '../../platform/http/errors.js';
import type { RateLimitStore } from '../../platform/http/rate-limit.js';
import type { Mailer } from '../../platform/mail.js';
import { recordAudit } from '../audit/index.js';
import { createRequestLimiter, REQUEST_LIMITS } from '../customer-accounts/index.js';
import { adminEmailTaken, createStoreWithOwner, hashPassword, storeLocale } from '../stores/index.js';
import * as repo from './signup.repository.js';
import { alreadyRegisteredMail, signupCodeMail } from './signup-mail.js';

export const SIGNUP_CODE_TTL_MS = 15 * 60_000;
const MAX_WRONG_TRIES = 5;
/** The per-e-mail limiter's store argument: sign-ups belong to no store yet. */
const PLATFORM = 'platform';

export interface SignupDeps {
  db: Db;
  mailer: Mailer;
  rateLimits: RateLimitStore;
  appSecret: string;
  logger: Logger;
  open: boolean;
  publicUrl: string;
}

export interface SignupInput {
  email: string;
  password: string;
  store_name: string;
  currency?: string;
  timezone?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Self-service sign-up (contract §14): a code mailed to the address, then the store, its owner and
 * their membership in one transaction. An address that already has an account gets the same answer
 * (and a mail pointing to sign-in), after the same password hashing, so nothing tells them apart.
 */
export function createSignupService(deps: SignupDeps) {
  const { db } = deps;
  const limiter = createRequestLimiter(deps.rateLimits);
  const codeHash = (email: string, code: string) =>
    createHmac('sha256', deps.appSecret).update(`signup:${email}:${code}`).digest();
  const refuseWhenClosed = () => {
    if (!deps.open) throw forbidden('Sign-up is closed on this platform: ask its operator for a store');
  };

  function mailLater(to: string, mail: { subject: string; text: string; html: string }) {
    // Sent after answering: the response time says nothing about the e-mail or the mail server.
    void deps.mailer
      .send({ to, ...mail })
      .catch((error) => deps.logger.error({ err: error }, 'could not send a sign-up e-mail'));
  }

  return {
    open: deps.open,

    async request(input: SignupInput, ip: string) {
      refuseWhenClosed();
      const email = input.email.trim().toLowerCase();
      if (!EMAIL.test(email)) {
        const message = 'must be an e-mail address such as you@example.com';
        throw invalidRequest(`email ${message}`, [{ field: 'email', message }]);
      }
      const storeName = input.store_name.trim();
      if (!storeName) {
        throw invalidRequest('store_name must not be empty', [
          { field: 'store_name', message: 'must not be empty' },
        ]);
      }
      const { currency, timezone } = storeLocale(input);
      await limiter.perAddress('signup-request', ip, REQUEST_LIMITS.requestsPerIp);
      await limiter.perEmail('signup', PLATFORM, email);
      const passwordHash = await hashPassword(input.password);
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const registered = await inTransaction(db, async (tx) => {
        if (await adminEmailTaken(tx, email)) {
          await repo.deleteRequest(tx, email);
          return true;
        }
        await repo.upsertRequest(tx, {
          email,
          code_hash: codeHash(email, code),
          password_hash: passwordHash,
          store_name: storeName,
          currency,
          timezone,
          attempts: 0,
          expires_at: new Date(Date.now() + SIGNUP_CODE_TTL_MS),
          created_at: new Date(),
        });
        return false;
      });
      mailLater(
        email,
        registered
          ? alreadyRegisteredMail(`${deps.publicUrl}/admin/login`)
          : signupCodeMail(code, storeName, SIGNUP_CODE_TTL_MS / 60_000),
      );
    },

    /** The right code creates the store and its owner; returns them for the session to open. */
    async verify(input: { email: string; code: string }, ip: string) {
      refuseWhenClosed();
      const email = input.email.trim().toLowerCase();
      await limiter.perAddress('signup-verify', ip, REQUEST_LIMITS.verificationsPerIp);
      const outcome = await inTransaction(db, async (tx) => {
        const pending = await repo.lockRequest(tx, email);
        if (!pending || pending.expires_at.getTime() <= Date.now()) return { verdict: 'invalid' as const };
        if (pending.attempts >= MAX_WRONG_TRIES) return { verdict: 'locked' as const };
        if (!timingSafeEqual(codeHash(email, input.code), pending.code_hash)) {
          await repo.countWrongAttempt(tx, email);
          return { verdict: 'invalid' as const };
        }
        const created = await createStoreWithOwner(tx, {
          email,
          passwordHash: pending.password_hash,
          storeName: pending.store_name,
          currency: pending.currency,
          timezone: pending.timezone,
        });
        await repo.deleteRequest(tx, email);
        await recordAudit(tx, {
          storeId: created.store.id,
          actor: { type: 'user', id: created.user.id, name: email },
          action: 'store.create',
          resourceType: 'store',
          resourceId: created.store.id,
          ip,
        });
        return { verdict: 'ok' as const, ...created };
      });
      if (outcome.verdict === 'locked') {
        throw new AppError(429, 'rate_limited', 'Too many wrong codes: sign up again for a new one');
      }
      if (outcome.verdict === 'invalid') throw unauthorized('The code is wrong or has expired');
      return { store: outcome.store, user: outcome.user };
    },
  };
}

export type SignupService = ReturnType<typeof createSignupService>;

/** Deletes sign-up requests a day after they expired, in bounded batches; for the worker's schedule. */
export async function pruneExpiredSignups(db: Db, options: { batchSize: number; signal?: AbortSignal }) {
  const before = new Date(Date.now() - 86_400_000);
  return {
    signup_requests: await deleteInBatches((limit) => repo.deleteExpiredRequests(db, before, limit), options),
  };
}
