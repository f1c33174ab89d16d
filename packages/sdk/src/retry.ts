import { retryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** Retries of one request after a 429 (default 3). */
  maxRetries?: number;
  /** A `Retry-After` longer than this (seconds) is not waited for: the 429 is thrown (default 60). */
  maxWaitSeconds?: number;
  /** Wait when a 429 carries no `Retry-After` (seconds, default 1). */
  defaultWaitSeconds?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A fetch that answers a 429 by waiting `Retry-After` and sending the same request again (a clone:
 * the same body and the same Idempotency-Key, so a retried create never creates twice).
 */
export function fetchRetrying429(
  base: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const maxRetries = options.maxRetries ?? 3;
  const maxWait = options.maxWaitSeconds ?? 60;
  const defaultWait = options.defaultWaitSeconds ?? 1;
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const response = await base(attempt < maxRetries ? request.clone() : request);
      if (response.status !== 429 || attempt >= maxRetries) return response;
      const wait = retryAfterSeconds(response.headers.get('retry-after')) ?? defaultWait;
      if (wait > maxWait) return response;
      await response.body?.cancel();
      // A fixed window resets on the second: a little past it, never before.
      await sleep(wait * 1000 + 50);
    }
  };
}
