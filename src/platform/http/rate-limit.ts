import type { Redis } from 'ioredis';

/** One fixed window's state after counting a hit. */
export interface WindowCount {
  count: number;
  /** Milliseconds until the window resets. */
  resetInMs: number;
}

export interface RateLimitStore {
  hit(key: string, windowMs: number): Promise<WindowCount>;
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

const MAX_KEYS = 100_000;

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { end: number; count: number }>();

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    return this.add(key, windowMs, Date.now());
  }

  /** Counts a hit at `now`; synchronous, for the Redis store's fallback. */
  add(key: string, windowMs: number, now: number): WindowCount {
    const entry = this.entry(key, windowMs, now);
    entry.count += 1;
    return { count: entry.count, resetInMs: entry.end - now };
  }

  /** Raises the window's count to at least `count` (what another store counted for the key). */
  raise(key: string, windowMs: number, now: number, count: number) {
    const entry = this.entry(key, windowMs, now);
    if (entry.count < count) entry.count = count;
  }

  private entry(key: string, windowMs: number, now: number) {
    const { end } = windowOf(now, windowMs);
    // Keyed with the window length, so limits of different windows on one key never mix.
    const id = `${windowMs}:${key}`;
    let entry = this.windows.get(id);
    if (!entry || entry.end !== end) {
      if (this.windows.size >= MAX_KEYS) this.evict(now);
      entry = { end, count: 0 };
      this.windows.set(id, entry);
    }
    return entry;
  }

  /**
   * Forgets the windows that have ended. Should a flood of live keys still fill the map, keys seen
   * once are forgotten first (oldest first), then any: memory stays bounded, and a flood of fresh
   * keys cannot wipe the count of a key under attack before it has wiped its own.
   */
  private evict(now: number) {
    for (const [id, entry] of this.windows) if (entry.end <= now) this.windows.delete(id);
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
    const local = this.local.add(key, windowMs, now);
    if (this.state !== 'closed') {
      this.probeWhenDue();
      return local;
    }
    try {
      const count = await this.countInRedis(key, windowMs, now);
      this.local.raise(key, windowMs, now, count);
      return { count: Math.max(count, local.count), resetInMs: local.resetInMs };
    } catch (error) {
      this.open(error);
      return local;
    }
  }

  private async countInRedis(key: string, windowMs: number, now: number): Promise<number> {
    const { start } = windowOf(now, windowMs);
    const redisKey = `emporium:rl:${key}:${start}`;
    const result = await this.withTimeout(
      this.redis
        .multi()
        .incr(redisKey)
        .pexpire(redisKey, windowMs + 1000)
        .exec(),
    );
    const [error, count] = result?.[0] ?? [new Error('redis returned no result'), undefined];
    if (error) throw error;
    const value = Number(count);
    if (!Number.isInteger(value) || value < 1) throw new Error(`redis returned the count ${String(count)}`);
    return value;
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
