import type { FastifyRequest } from 'fastify';
import { type AppError, rateLimited } from './errors.js';
import type { RateLimitStore } from './rate-limit.js';

/** Failed authentications one client address may make per window before it is answered 429. */
export const AUTH_FAILURES_PER_WINDOW = 30;
const WINDOW_MS = 60_000;

/**
 * Counts failed authentications (missing, invalid, revoked or expired credentials) per client
 * address in the shared rate-limit store. Past the limit, the failure is answered 429 with
 * Retry-After instead of 401, so guessing keys or tokens costs the guesser time; a valid
 * credential is never counted here and keeps its own per-key limit.
 */
export function createAuthFailureThrottle(store: RateLimitStore) {
  return {
    async refuse(request: FastifyRequest, failure: AppError): Promise<never> {
      const { count, retryInMs } = await store.hitSliding(
        `auth-fail:${request.ip}`,
        WINDOW_MS,
        AUTH_FAILURES_PER_WINDOW,
      );
      if (count > AUTH_FAILURES_PER_WINDOW) throw rateLimited(Math.max(1, Math.ceil(retryInMs / 1000)));
      throw failure;
    },
  };
}

export type AuthFailureThrottle = ReturnType<typeof createAuthFailureThrottle>;
