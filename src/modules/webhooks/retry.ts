/**
 * What to do after one delivery attempt (pure): done, retry after a delay, or give up; and whether
 * the webhook itself must be disabled.
 */
export type AttemptOutcome =
  | { kind: 'succeeded' }
  | { kind: 'retry'; delaySeconds: number }
  | { kind: 'failed'; disable?: string };

export interface AttemptResult {
  /** HTTP status, or undefined for a network error or a time-out. */
  status?: number;
  /** Seconds from a Retry-After header, when present and valid. */
  retryAfterSeconds?: number;
}

/** Statuses worth trying again: the receiver is down, overloaded or asked us to slow down. */
function isRetryable(status: number | undefined): boolean {
  return status === undefined || status >= 500 || status === 408 || status === 429;
}

/**
 * `attempt` is the number of the attempt just made (1 for the first). The schedule lists the delays
 * before the 2nd, 3rd… attempts; `random` in [0, 1) gives ±10 % jitter. A Retry-After longer than the
 * next delay is honoured.
 */
export function nextStep(
  result: AttemptResult,
  attempt: number,
  schedule: readonly number[],
  random: number = Math.random(),
): AttemptOutcome {
  const { status } = result;
  if (status !== undefined && status >= 200 && status < 300) return { kind: 'succeeded' };
  if (status === 410) return { kind: 'failed', disable: 'the endpoint answered 410 Gone' };
  if (!isRetryable(status)) return { kind: 'failed' };
  const base = schedule[attempt - 1];
  if (base === undefined) return { kind: 'failed' };
  const jittered = base * (0.9 + 0.2 * random);
  const delaySeconds = Math.max(jittered, result.retryAfterSeconds ?? 0);
  return { kind: 'retry', delaySeconds };
}

/** Retry-After as seconds: a delta in seconds or an HTTP date; undefined when absent or invalid. */
export function parseRetryAfter(header: string | undefined, now: Date): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed);
  // Anything else must be an HTTP date, which names a weekday and a month.
  if (!/[A-Za-z]{3}/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, (at - now.getTime()) / 1000);
}
