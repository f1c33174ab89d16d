import { AppError, rateLimited } from '../../platform/http/errors.js';
import type { RateLimitStore } from '../../platform/http/rate-limit.js';

/**
 * The limits on requests that make the shop e-mail an address (contract §5: one-time codes; §13
 * applies the same to back-in-stock sign-ups): per e-mail, and per client IP (many shoppers share
 * one address behind NAT), over a sliding 15 minutes.
 */
export const REQUEST_WINDOW_MS = 15 * 60_000;
export const REQUEST_LIMITS = { perEmail: 5, requestsPerIp: 30, verificationsPerIp: 60 } as const;

const retryAfterOf = (retryInMs: number) => Math.max(1, Math.ceil(retryInMs / 1000));

/**
 * Counts in the shared rate-limit store (Redis when configured, so every process agrees; its
 * counts are atomic, so a burst cannot pass them). Each purpose counts apart: signing up for a
 * product's return does not use up a shopper's login codes.
 */
export function createRequestLimiter(rateLimits: RateLimitStore) {
  return {
    /** One request of `purpose` from `ip`; 429 with Retry-After past `max` in the window. */
    async perAddress(purpose: string, ip: string, max: number) {
      const { count, retryInMs } = await rateLimits.hitSliding(`${purpose}:${ip}`, REQUEST_WINDOW_MS, max);
      if (count > max) throw rateLimited(retryAfterOf(retryInMs));
    },

    /** One request of `purpose` for a store's e-mail (lower-cased by the caller); 429 past the limit. */
    async perEmail(purpose: string, storeId: string, email: string, max: number = REQUEST_LIMITS.perEmail) {
      const key = `${purpose}-email:${storeId}:${email}`;
      const { count, retryInMs } = await rateLimits.hitSliding(key, REQUEST_WINDOW_MS, max);
      if (count > max)
        throw new AppError(
          429,
          'rate_limited',
          'Too many requests for this e-mail; try again later',
          undefined,
          { 'retry-after': String(retryAfterOf(retryInMs)) },
        );
    },
  };
}

export type RequestLimiter = ReturnType<typeof createRequestLimiter>;
