import { describe, expect, it } from 'vitest';
import { batchLoader } from './batch-loader.js';

describe('batchLoader', () => {
  it('answers the loads of one turn with one call, each key once, and a missing key undefined', async () => {
    const calls: string[][] = [];
    const load = batchLoader<string, string>({
      keyOf: (k) => k,
      loadAll: async (keys) => {
        calls.push(keys);
        return new Map(keys.filter((k) => k !== 'gone').map((k) => [k, k.toUpperCase()]));
      },
    });
    const answers = await Promise.all(['a', 'b', 'a', 'gone', 'c'].map((k) => load(k)));
    expect(answers).toEqual(['A', 'B', 'A', undefined, 'C']);
    expect(calls).toEqual([['a', 'b', 'gone', 'c']]);
    // A later turn is a batch of its own.
    expect(await load('d')).toBe('D');
    expect(calls).toHaveLength(2);
  });

  it('splits a large turn into batches of maxBatch, and rejects every load of a batch that failed', async () => {
    const sizes: number[] = [];
    const load = batchLoader<number, number>({
      keyOf: String,
      maxBatch: 3,
      loadAll: async (keys) => {
        sizes.push(keys.length);
        if (keys.includes(4)) throw new Error('database away');
        return new Map(keys.map((k) => [String(k), k * 2]));
      },
    });
    const settled = await Promise.allSettled([1, 2, 3, 4, 5].map((k) => load(k)));
    expect(sizes).toEqual([3, 2]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
      2,
      4,
      6,
      'database away',
      'database away',
    ]);
  });
});
