import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryRateLimitStore } from './rate-limit.js';

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

  it('forgets past windows once it holds many keys, so memory stays bounded', async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i <= 100_000; i++) await store.hit(`key-${i}`, MINUTE);
    vi.setSystemTime(new Date('2026-11-22T10:16:00.000Z'));
    await store.hit('fresh', MINUTE);
    // The map is private; its size is the only sign of eviction.
    const windows = (store as unknown as { windows: Map<string, unknown> }).windows;
    expect(windows.size).toBe(1);
  });
});
