import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache.js';

function setUp(ttlMs = 1000, maxEntries = 10) {
  let now = 0;
  const cache = new TtlCache<number>({ ttlMs, maxEntries, now: () => now });
  let loads = 0;
  const load = (value: number) => () => {
    loads++;
    return Promise.resolve(value);
  };
  return {
    cache,
    load,
    loads: () => loads,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('TtlCache', () => {
  it('serves a loaded value until the TTL has passed, then loads again', async () => {
    const { cache, load, loads, advance } = setUp(1000);
    expect(await cache.getOrLoad('k', load(1))).toBe(1);
    advance(999);
    expect(await cache.getOrLoad('k', load(2))).toBe(1);
    advance(1);
    expect(await cache.getOrLoad('k', load(3))).toBe(3);
    expect(loads()).toBe(2);
  });

  it('keeps one value per key', async () => {
    const { cache, load } = setUp();
    expect(await cache.getOrLoad('a', load(1))).toBe(1);
    expect(await cache.getOrLoad('b', load(2))).toBe(2);
    expect(await cache.getOrLoad('a', load(3))).toBe(1);
  });

  it('shares one load between concurrent misses', async () => {
    const { cache, load, loads } = setUp();
    const values = await Promise.all([1, 2, 3].map((n) => cache.getOrLoad('k', load(n))));
    expect(values).toEqual([1, 1, 1]);
    expect(loads()).toBe(1);
  });

  it('forgets a failed load, so the next call retries', async () => {
    const { cache, load } = setUp();
    await expect(cache.getOrLoad('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.getOrLoad('k', load(2))).toBe(2);
  });

  it('evicts the oldest entry past maxEntries', async () => {
    const { cache, load, loads } = setUp(1000, 2);
    await cache.getOrLoad('a', load(1));
    await cache.getOrLoad('b', load(2));
    await cache.getOrLoad('c', load(3));
    expect(cache.size).toBe(2);
    expect(await cache.getOrLoad('b', load(20))).toBe(2);
    expect(await cache.getOrLoad('a', load(10))).toBe(10);
    expect(loads()).toBe(4);
  });

  // A key holding a version that moves with every sale: only the live entries may stay.
  it('forgets expired entries at the next load, long before maxEntries', async () => {
    const { cache, load, advance } = setUp(1000, 10_000);
    for (let version = 0; version < 50; version++) {
      await cache.getOrLoad(`total v${version}`, load(version));
      advance(100);
    }
    // 10 loads per TTL: the 10 of the last second are live, the 40 before them gone.
    expect(cache.size).toBe(10);
    advance(1000);
    await cache.getOrLoad('other', load(0));
    expect(cache.size).toBe(1);
  });

  it('caches nothing with a TTL of 0', async () => {
    const { cache, load } = setUp(0);
    expect(await cache.getOrLoad('k', load(1))).toBe(1);
    expect(await cache.getOrLoad('k', load(2))).toBe(2);
  });

  it('refreshes ahead of expiry in the background, serving the old value until the new one has loaded', async () => {
    let now = 0;
    const cache = new TtlCache<number>({
      ttlMs: 5_000,
      maxEntries: 10,
      refreshAheadMs: 1_000,
      now: () => now,
    });
    let release: (value: number) => void = () => {};
    let loads = 0;
    const slow = () => {
      loads++;
      return new Promise<number>((resolve) => {
        release = resolve;
      });
    };
    const first = cache.getOrLoad('k', slow);
    release(1);
    expect(await first).toBe(1);
    now = 3_999;
    expect(await cache.getOrLoad('k', slow)).toBe(1);
    expect(loads).toBe(1);
    now = 4_000;
    // Inside the last second: one load starts, the old value answers at once (twice: one refresh).
    expect(await cache.getOrLoad('k', slow)).toBe(1);
    expect(await cache.getOrLoad('k', slow)).toBe(1);
    expect(loads).toBe(2);
    release(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.getOrLoad('k', slow)).toBe(2);
    // The new value counts its TTL from the start of its load (4,000): expired at 9,000.
    now = 8_999;
    const stillTwo = cache.getOrLoad('k', slow);
    expect(await stillTwo).toBe(2);
    now = 9_000;
    const expired = cache.getOrLoad('k', slow);
    release(3);
    expect(await expired).toBe(3);
  });

  it('after a failed refresh ahead, keeps the old value until it expires and tries again', async () => {
    let now = 0;
    const cache = new TtlCache<number>({
      ttlMs: 5_000,
      maxEntries: 10,
      refreshAheadMs: 1_000,
      now: () => now,
    });
    expect(await cache.getOrLoad('k', () => Promise.resolve(1))).toBe(1);
    now = 4_500;
    expect(await cache.getOrLoad('k', () => Promise.reject(new Error('down')))).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.getOrLoad('k', () => Promise.resolve(2))).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.getOrLoad('k', () => Promise.resolve(3))).toBe(2);
  });
});
