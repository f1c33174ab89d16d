import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  MemoryRateLimitStore,
  REDIS_COOL_DOWN_MS,
  REDIS_TIMEOUT_MS,
  RedisRateLimitStore,
} from './rate-limit.js';

const MINUTE = 60_000;

describe('MemoryRateLimitStore', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-22T10:15:30.000Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts hits within a window and tells how long until it resets', async () => {
    const store = new MemoryRateLimitStore();
    expect(await store.hit('key-a', MINUTE)).toEqual({ count: 1, resetInMs: 30_000 });
    expect(await store.hit('key-a', MINUTE)).toEqual({ count: 2, resetInMs: 30_000 });
    vi.setSystemTime(new Date('2026-11-22T10:15:59.999Z'));
    expect(await store.hit('key-a', MINUTE)).toEqual({ count: 3, resetInMs: 1 });
  });

  it('starts again at the next window, which is aligned to the minute', async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 4; i++) await store.hit('key-a', MINUTE);
    vi.setSystemTime(new Date('2026-11-22T10:16:00.000Z'));
    expect(await store.hit('key-a', MINUTE)).toEqual({ count: 1, resetInMs: MINUTE });
    vi.setSystemTime(new Date('2026-11-22T10:16:45.000Z'));
    expect(await store.hit('key-a', MINUTE)).toEqual({ count: 2, resetInMs: 15_000 });
  });

  it('keeps a separate count per key', async () => {
    const store = new MemoryRateLimitStore();
    await store.hit('key-a', MINUTE);
    await store.hit('key-a', MINUTE);
    expect((await store.hit('key-b', MINUTE)).count).toBe(1);
    expect((await store.hit('key-a', MINUTE)).count).toBe(3);
  });

  // Processes never coordinate: a store created later must still end the window at the same instant.
  it('ends the window at the same instant whenever the store was created', async () => {
    const first = new MemoryRateLimitStore();
    await first.hit('key-a', MINUTE);
    vi.setSystemTime(new Date('2026-11-22T10:15:50.000Z'));
    const second = new MemoryRateLimitStore();
    expect(await first.hit('key-a', MINUTE)).toEqual({ count: 2, resetInMs: 10_000 });
    expect(await second.hit('key-a', MINUTE)).toEqual({ count: 1, resetInMs: 10_000 });
  });

  it('honours other window lengths', async () => {
    const store = new MemoryRateLimitStore();
    vi.setSystemTime(new Date('2026-11-22T10:15:30.250Z'));
    expect(await store.hit('key-a', 1000)).toEqual({ count: 1, resetInMs: 750 });
    vi.setSystemTime(new Date('2026-11-22T10:15:31.000Z'));
    expect(await store.hit('key-a', 1000)).toEqual({ count: 1, resetInMs: 1000 });
  });

  // An ended window is read by the next one's sliding estimate, so it is forgotten one window later.
  it('forgets windows no estimate reads any more once it holds many keys, so memory stays bounded', async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 100_000; i++) await store.hit(`key-${i}`, MINUTE);
    vi.setSystemTime(new Date('2026-11-22T10:17:00.000Z'));
    await store.hit('fresh', MINUTE);
    // The map is private; its size is the only sign of eviction.
    const windows = (store as unknown as { windows: Map<string, unknown> }).windows;
    expect(windows.size).toBe(1);
  });

  // Limits of 1 minute (API keys) and 15 minutes (sign-in) share the store.
  it('keeps the counts of longer windows when it forgets ended ones', async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 3; i++) await store.hit('login:victim', 15 * MINUTE);
    for (let i = 0; i < 99_999; i++) await store.hit(`key-${i}`, MINUTE);
    vi.setSystemTime(new Date('2026-11-22T10:16:00.000Z'));
    for (let i = 0; i < 10; i++) await store.hit(`next-${i}`, MINUTE);
    expect((await store.hit('login:victim', 15 * MINUTE)).count).toBe(4);
  });

  // A fixed window lets 2 × the limit through across its boundary; the abuse limits must not.
  it('slides: the previous window counts for the part of it still less than a window ago', async () => {
    const store = new MemoryRateLimitStore();
    vi.setSystemTime(new Date('2026-11-22T10:14:59.000Z'));
    for (let i = 0; i < 10; i++) await store.hitSliding('login:victim', 15 * MINUTE, 10);
    expect(await store.hitSliding('login:victim', 15 * MINUTE, 10)).toMatchObject({ count: 11 });
    vi.setSystemTime(new Date('2026-11-22T10:15:00.000Z'));
    // 1 in this window + 11 × (a whole window still ahead) = 12: refused, whereas the fixed count is 1.
    const next = await store.hitSliding('login:victim', 15 * MINUTE, 10);
    expect(next.count).toBeCloseTo(12, 6);
    // With no more hits, room for one comes once 11 × (1 - t/15 min) + 1 <= 9: t = 15 × 3/11 min.
    expect(next.retryInMs).toBe(Math.ceil((15 * MINUTE * 3) / 11));
    vi.setSystemTime(new Date('2026-11-22T10:22:30.000Z'));
    expect((await store.hitSliding('login:victim', 15 * MINUTE, 10)).count).toBeCloseTo(2 + 5.5, 6);
    // Two windows later nothing is left of the burst.
    vi.setSystemTime(new Date('2026-11-22T10:45:00.000Z'));
    expect(await store.hitSliding('login:victim', 15 * MINUTE, 10)).toEqual({ count: 1, retryInMs: 0 });
  });

  it('answers when a key over its sliding limit may try again, also past the window', async () => {
    const store = new MemoryRateLimitStore();
    vi.setSystemTime(new Date('2026-11-22T10:15:00.000Z'));
    for (let i = 0; i < 19; i++) await store.hitSliding('otp:ip', MINUTE, 10);
    const over = await store.hitSliding('otp:ip', MINUTE, 10);
    expect(over.count).toBe(20);
    // 60 s to the end of the window, then 20 × (1 - t/60 s) <= 9 in the next: t = 33 s.
    expect(over.retryInMs).toBe(60_000 + 33_000);
    vi.setSystemTime(new Date('2026-11-22T10:16:00.000Z').getTime() + 33_000);
    expect((await store.hitSliding('otp:ip', MINUTE, 10)).count).toBeCloseTo(10, 6);
  });

  it('keeps an ended window one window longer when it forgets, for the sliding estimate', async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 5; i++) await store.hitSliding('login:victim', MINUTE, 10);
    for (let i = 0; i < 100_000; i++) await store.hit(`key-${i}`, MINUTE);
    vi.setSystemTime(new Date('2026-11-22T10:16:30.000Z'));
    expect((await store.hitSliding('login:victim', MINUTE, 10)).count).toBeCloseTo(1 + 2.5, 6);
  });

  it('stays bounded when a flood of live keys fills it, forgetting keys seen once first', async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 5; i++) await store.hit('login:victim', 15 * MINUTE);
    for (let i = 0; i < 150_000; i++) await store.hit(`key-${i}`, MINUTE);
    const windows = (store as unknown as { windows: Map<string, unknown> }).windows;
    expect(windows.size).toBeLessThanOrEqual(100_000);
    expect((await store.hit('login:victim', 15 * MINUTE)).count).toBe(6);
    expect((await store.hit('key-149999', MINUTE)).count).toBe(2);
  });
});

/** A stand-in for ioredis: up (counts), down (rejects at once) or hung (never answers). */
function fakeRedis() {
  const counts = new Map<string, number>();
  const calls = { exec: 0, ping: 0 };
  let mode: 'up' | 'down' | 'hung' | 'broken' = 'up';
  const answer = <T>(value: () => T): Promise<T> =>
    mode === 'up'
      ? Promise.resolve(value())
      : mode === 'hung'
        ? new Promise<T>(() => {})
        : Promise.reject(new Error('connect ECONNREFUSED'));
  const client = {
    multi() {
      let key = '';
      let previousKey: string | undefined;
      const chain = {
        incr(k: string) {
          key = k;
          return chain;
        },
        pexpire: () => chain,
        get(k: string) {
          previousKey = k;
          return chain;
        },
        exec: () => {
          calls.exec += 1;
          if (mode === 'broken') return Promise.resolve([[new Error('WRONGTYPE'), null]]);
          return answer(() => {
            const count = (counts.get(key) ?? 0) + 1;
            counts.set(key, count);
            const replies: [Error | null, unknown][] = [
              [null, count],
              [null, 1],
            ];
            if (previousKey)
              replies.push([null, counts.has(previousKey) ? String(counts.get(previousKey)) : null]);
            return replies;
          });
        },
      };
      return chain;
    },
    ping: () => {
      calls.ping += 1;
      return answer(() => 'PONG');
    },
    disconnect() {},
  };
  return {
    client: client as unknown as Redis,
    calls,
    counts,
    setMode: (next: typeof mode) => {
      mode = next;
    },
    /** Another process counting the key in Redis. */
    bump: (key: string, by: number) => {
      const [redisKey] = [...counts.keys()].filter((k) => k.startsWith(`emporium:rl:${key}:`));
      counts.set(redisKey as string, (counts.get(redisKey as string) ?? 0) + by);
    },
  };
}

describe('RedisRateLimitStore', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-22T10:15:30.000Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function setup() {
    const redis = fakeRedis();
    const events: string[] = [];
    const store = new RedisRateLimitStore(redis.client, {
      onUnavailable: (error) => events.push(`unavailable: ${(error as Error).message}`),
      onRecovered: () => events.push('recovered'),
    });
    return { redis, store, events };
  }

  it('counts in Redis, so the counts of other processes are included', async () => {
    const { redis, store } = setup();
    expect(await store.hit('key-a', MINUTE)).toEqual({ count: 1, resetInMs: 30_000 });
    redis.bump('key-a', 5);
    expect(await store.hit('key-a', MINUTE)).toEqual({ count: 7, resetInMs: 30_000 });
    expect(redis.counts.get(`emporium:rl:key-a:${Date.parse('2026-11-22T10:15:00.000Z')}`)).toBe(7);
  });

  it('when Redis fails, goes on counting in the process from the last count Redis gave', async () => {
    const { redis, store, events } = setup();
    await store.hit('key-a', MINUTE);
    redis.bump('key-a', 5);
    await store.hit('key-a', MINUTE);
    redis.setMode('down');
    expect((await store.hit('key-a', MINUTE)).count).toBe(8);
    expect((await store.hit('key-a', MINUTE)).count).toBe(9);
    expect((await store.hit('key-b', MINUTE)).count).toBe(1);
    expect(store.countingInRedis).toBe(false);
    // Opened by the first failure: Redis is asked no more, and the outage is reported once.
    expect(redis.calls.exec).toBe(3);
    expect(events).toEqual(['unavailable: connect ECONNREFUSED']);
  });

  it('waits for a hung Redis only until the timeout, and only once', async () => {
    const { redis, store } = setup();
    redis.setMode('hung');
    const first = store.hit('key-a', MINUTE);
    await vi.advanceTimersByTimeAsync(REDIS_TIMEOUT_MS);
    expect(await first).toMatchObject({ count: 1 });
    // Within the cool-down, answered at once (no timer needs to run).
    expect(await store.hit('key-a', MINUTE)).toMatchObject({ count: 2 });
    expect(redis.calls.exec).toBe(1);
  });

  it('probes with a PING after the cool-down, in the background, and counts in Redis again once it answers', async () => {
    const { redis, store, events } = setup();
    redis.setMode('down');
    await store.hit('key-a', MINUTE);
    await vi.advanceTimersByTimeAsync(REDIS_COOL_DOWN_MS - 1);
    await store.hit('key-a', MINUTE);
    expect(redis.calls.ping).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    // Still down: the probe fails, the breaker stays open for another cool-down.
    expect((await store.hit('key-a', MINUTE)).count).toBe(3);
    expect(redis.calls.ping).toBe(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(store.countingInRedis).toBe(false);

    redis.setMode('up');
    await vi.advanceTimersByTimeAsync(REDIS_COOL_DOWN_MS);
    // This hit is counted in the process while the probe runs; the next ones go to Redis.
    expect((await store.hit('key-a', MINUTE)).count).toBe(4);
    await vi.advanceTimersByTimeAsync(0);
    expect(store.countingInRedis).toBe(true);
    expect(events).toEqual(['unavailable: connect ECONNREFUSED', 'recovered']);
    // Redis missed the 4 counted during the outage: the greater count holds until the window ends.
    expect((await store.hit('key-a', MINUTE)).count).toBe(5);
    expect(redis.calls.exec).toBe(2);
    vi.setSystemTime(new Date('2026-11-22T10:16:00.000Z'));
    expect((await store.hit('key-a', MINUTE)).count).toBe(1);
  });

  it("slides with the previous window Redis counted, so other processes' attempts count too", async () => {
    const { redis, store } = setup();
    vi.setSystemTime(new Date('2026-11-22T10:14:30.000Z'));
    await store.hitSliding('login:victim', MINUTE, 10);
    redis.bump('login:victim', 9);
    vi.setSystemTime(new Date('2026-11-22T10:15:15.000Z'));
    // 1 now + 10 counted in Redis in the previous window × 45/60.
    expect((await store.hitSliding('login:victim', MINUTE, 10)).count).toBeCloseTo(1 + 7.5, 6);
    redis.setMode('down');
    // Counted in the process from then on, with the previous window Redis gave.
    expect((await store.hitSliding('login:victim', MINUTE, 10)).count).toBeCloseTo(2 + 7.5, 6);
  });

  it('takes an error inside the reply as a failure, never as a count of zero', async () => {
    const { redis, store } = setup();
    await store.hit('key-a', MINUTE);
    redis.setMode('broken');
    expect((await store.hit('key-a', MINUTE)).count).toBe(2);
    expect(store.countingInRedis).toBe(false);
  });
});
