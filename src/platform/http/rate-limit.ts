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
  return { start, resetInMs: start + windowMs - now };
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { start: number; count: number }>();

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = Date.now();
    const { start, resetInMs } = windowOf(now, windowMs);
    let entry = this.windows.get(key);
    if (!entry || entry.start !== start) {
      if (this.windows.size > 100_000) this.evict(start);
      entry = { start, count: 0 };
      this.windows.set(key, entry);
    }
    entry.count += 1;
    return { count: entry.count, resetInMs };
  }

  private evict(currentStart: number) {
    for (const [key, entry] of this.windows) if (entry.start !== currentStart) this.windows.delete(key);
  }

  async close() {}
}

export class RedisRateLimitStore implements RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Counts in Redis; if Redis cannot answer, the request is let through (fail open) and reported. */
  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const { start, resetInMs } = windowOf(Date.now(), windowMs);
    const redisKey = `emporium:rl:${key}:${start}`;
    try {
      const result = await this.redis
        .multi()
        .incr(redisKey)
        .pexpire(redisKey, windowMs + 1000)
        .exec();
      return { count: Number(result?.[0]?.[1] ?? 0), resetInMs };
    } catch (error) {
      this.onError(error);
      return { count: 1, resetInMs };
    }
  }

  async close() {
    this.redis.disconnect();
  }
}
