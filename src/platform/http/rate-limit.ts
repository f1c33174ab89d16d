import type { Redis } from 'ioredis';

/** One fixed window's state after counting a hit. */
export interface WindowCount {
  count: number;
  /** Milliseconds until the window resets. */
  resetInMs: number;
}

export interface RateLimitStore {
  /** Counts a hit in the key's fixed window (the API keys' limit, as the contract defines it). */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /**
   * Counts a hit and answers the sliding-window estimate: this window's count plus the previous
   * window's, weighted by how much of it is still less than `windowMs` ago. For the abuse limits
   * (sign-in, codes, failed authentications), whose fixed windows would let twice the limit through
   * across a boundary; the count may be fractional.
   */
  hitSliding(key: string, windowMs: number, limit: number): Promise<SlidingCount>;
  close(): Promise<void>;
}

/**
 * Windows are aligned to multiples of windowMs since the epoch, so every process (and Redis) agrees
 * on where a window starts without coordinating.
 */
function windowOf(now: number, windowMs: number) {
  const start = Math.floor(now / windowMs) * windowMs;
  return { start, end: start + windowMs, resetInMs: start + windowMs - now };
}

/** A sliding-window estimate, and how long until a hit would be within `limit` again. */
export interface SlidingCount {
  count: number;
  retryInMs: number;
}

/**
 * This window's count plus the part of the previous window still less than `windowMs` ago, and the
 * time until the estimate, with no more hits, leaves room for one more under `limit`.
 */
function slidingCount(
  window: { count: number; previous: number; end: number },
  now: number,
  windowMs: number,
  limit: number,
): SlidingCount {
  const { count, previous } = window;
  const resetInMs = window.end - now;
  const room = limit - 1;
  const retryInMs =
    count <= room
      ? previous === 0
        ? 0
        : Math.max(0, resetInMs - ((room - count) * windowMs) / previous)
      : resetInMs + windowMs * (1 - room / count);
  return { count: count + (previous * resetInMs) / windowMs, retryInMs: Math.ceil(retryInMs) };
}

const MAX_KEYS = 100_000;

interface Window {
  end: number;
  length: number;
  count: number;
  /** The key's count in the window just before this one (0 if it had none). */
  previous: number;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, Window>();

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    return this.add(key, windowMs, Date.now());
  }

  async hitSliding(key: string, windowMs: number, limit: number): Promise<SlidingCount> {
    const now = Date.now();
    this.add(key, windowMs, now);
    return this.slidingOf(key, windowMs, now, limit);
  }

  /** The fixed window's count of a key whose hit was just added. */
  countOf(key: string, windowMs: number, now: number): WindowCount {
    const entry = this.entry(key, windowMs, now);
    return { count: entry.count, resetInMs: entry.end - now };
  }

  /** The sliding estimate of a key whose hit was just added. */
  slidingOf(key: string, windowMs: number, now: number, limit: number): SlidingCount {
    return slidingCount(this.entry(key, windowMs, now), now, windowMs, limit);
  }

  /** Counts a hit at `now`; synchronous, for the Redis store's fallback. */
  add(key: string, windowMs: number, now: number): WindowCount {
    const entry = this.entry(key, windowMs, now);
    entry.count += 1;
    return { count: entry.count, resetInMs: entry.end - now };
  }

  /** Raises the window's counts to at least what another store counted for the key. */
  raise(key: string, windowMs: number, now: number, count: number, previous = 0) {
    const entry = this.entry(key, windowMs, now);
    if (entry.count < count) entry.count = count;
    if (entry.previous < previous) entry.previous = previous;
  }

  private entry(key: string, windowMs: number, now: number) {
    const { start, end } = windowOf(now, windowMs);
    // Keyed with the window length, so limits of different windows on one key never mix.
    const id = `${windowMs}:${key}`;
    let entry = this.windows.get(id);
    if (!entry || entry.end !== end) {
      if (this.windows.size >= MAX_KEYS) this.evict(now);
      const previous = entry?.end === start ? entry.count : 0;
      entry = { end, length: windowMs, count: 0, previous };
      this.windows.set(id, entry);
    }
    return entry;
  }

  /**
   * Forgets the windows that no estimate reads any more. Should a flood of live keys still fill the map, keys seen
   * once are forgotten first (oldest first), then any: memory stays bounded, and a flood of fresh
   * keys cannot wipe the count of a key under attack before it has wiped its own.
   */
  private evict(now: number) {
    // A window is kept one window longer than it lasts: the sliding estimate still reads it.
    for (const [id, entry] of this.windows) if (entry.end + entry.length <= now) this.windows.delete(id);
    const target = MAX_KEYS * 0.9;
    for (const [id, entry] of this.windows) {
      if (this.windows.size < target) return;
      if (entry.count <= 1) this.windows.delete(id);
    }
    for (const id of this.windows.keys()) {
      if (this.windows.size < target) return;
      this.windows.delete(id);
    }
  }

  async close() {}
}

export interface RedisRateLimitOptions {
  /** How long a count may wait for Redis before it is counted in this process instead. */
  timeoutMs?: number;
  /** After a failure, counts skip Redis this long; then a background probe tries it again. */
  coolDownMs?: number;
  /** Redis stopped answering: counting moved into this process (once per outage). */
  onUnavailable?: (error: unknown) => void;
  /** Redis answers again: counting is back in Redis. */
  onRecovered?: () => void;
}

export const REDIS_TIMEOUT_MS = 250;
export const REDIS_COOL_DOWN_MS = 5_000;

/**
 * Counts in Redis, shared by every process, behind a circuit breaker: a failure or a reply slower
 * than `timeoutMs` opens it, and for `coolDownMs` counts go to a store in this process without
 * touching Redis (an outage costs no latency); then a PING in the background, never a request,
 * finds out whether Redis answers again. Limits never fail open: the local store holds, for each
 * key, at least the last count Redis gave this process, and goes on from there; once Redis is back,
 * the greater of the two counts is answered until the window ends.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly local = new MemoryRateLimitStore();
  private readonly timeoutMs: number;
  private readonly coolDownMs: number;
  private state: 'closed' | 'open' | 'probing' = 'closed';
  private retryAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisRateLimitOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? REDIS_TIMEOUT_MS;
    this.coolDownMs = options.coolDownMs ?? REDIS_COOL_DOWN_MS;
  }

  /** Whether counts currently go to Redis. */
  get countingInRedis() {
    return this.state === 'closed';
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = Date.now();
    await this.count(key, windowMs, now, false);
    return this.local.countOf(key, windowMs, now);
  }

  async hitSliding(key: string, windowMs: number, limit: number): Promise<SlidingCount> {
    const now = Date.now();
    await this.count(key, windowMs, now, true);
    return this.local.slidingOf(key, windowMs, now, limit);
  }

  /** Counts in this process and, while the breaker is closed, in Redis; the local window keeps the greater. */
  private async count(key: string, windowMs: number, now: number, withPrevious: boolean) {
    this.local.add(key, windowMs, now);
    if (this.state !== 'closed') {
      this.probeWhenDue();
      return;
    }
    try {
      const counted = await this.countInRedis(key, windowMs, now, withPrevious);
      this.local.raise(key, windowMs, now, counted.count, counted.previous);
    } catch (error) {
      this.open(error);
    }
  }

  private async countInRedis(key: string, windowMs: number, now: number, withPrevious: boolean) {
    const { start } = windowOf(now, windowMs);
    const redisKey = `emporium:rl:${key}:${start}`;
    // Kept one window longer than it lasts, for the sliding estimate of the next window.
    const commands = this.redis
      .multi()
      .incr(redisKey)
      .pexpire(redisKey, 2 * windowMs + 1000);
    if (withPrevious) commands.get(`emporium:rl:${key}:${start - windowMs}`);
    const result = await this.withTimeout(commands.exec());
    const [error, count] = result?.[0] ?? [new Error('redis returned no result'), undefined];
    if (error) throw error;
    const value = Number(count);
    if (!Number.isInteger(value) || value < 1) throw new Error(`redis returned the count ${String(count)}`);
    if (!withPrevious) return { count: value, previous: 0 };
    const [previousError, previous] = result?.[2] ?? [
      new Error('redis returned no previous count'),
      undefined,
    ];
    if (previousError) throw previousError;
    const previousValue = previous === null ? 0 : Number(previous);
    if (!Number.isInteger(previousValue) || previousValue < 0)
      throw new Error(`redis returned the previous count ${String(previous)}`);
    return { count: value, previous: previousValue };
  }

  /** The client (re)connected: probe at the next count rather than after the rest of the cool-down. */
  connected() {
    if (this.state === 'open') this.retryAt = 0;
  }

  private open(error: unknown) {
    if (this.state === 'closed') this.options.onUnavailable?.(error);
    this.state = 'open';
    this.retryAt = Date.now() + this.coolDownMs;
  }

  private probeWhenDue() {
    if (this.state !== 'open' || Date.now() < this.retryAt) return;
    this.state = 'probing';
    this.withTimeout(this.redis.ping()).then(
      () => {
        this.state = 'closed';
        this.options.onRecovered?.();
      },
      () => {
        this.state = 'open';
        this.retryAt = Date.now() + this.coolDownMs;
      },
    );
  }

  private async withTimeout<T>(operation: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`redis did not answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      return await Promise.race([operation, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close() {
    this.redis.disconnect();
  }
}

/**
 * The Redis client and store as every process builds them. ioredis is loaded only here: a
 * single-process install never holds it. The client's own command timeout matches the store's.
 */
export async function openRedisRateLimitStore(
  url: string,
  options: RedisRateLimitOptions & { onClientError?: (error: unknown) => void } = {},
): Promise<RedisRateLimitStore> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    commandTimeout: options.timeoutMs ?? REDIS_TIMEOUT_MS,
  });
  const store = new RedisRateLimitStore(redis, options);
  redis.on('error', (error) => options.onClientError?.(error));
  redis.on('ready', () => store.connected());
  return store;
}
