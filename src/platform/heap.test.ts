import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collectAllAvailableGarbage } from './heap.js';

const youngGenerationBytes = () =>
  v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.physical_space_size ?? 0;

describe('start-up garbage', () => {
  it('gives back the young generation a burst of allocations grew, without exposing a global gc', () => {
    const hadGc = typeof (globalThis as { gc?: unknown }).gc;
    let kept: { n: number; s: string }[] = [];
    for (let n = 0; n < 1_000_000; n++) {
      kept.push({ n, s: `item ${n}` });
      if (kept.length > 100_000) kept = [];
    }
    const grown = youngGenerationBytes();
    kept = [];
    collectAllAvailableGarbage();
    const after = youngGenerationBytes();
    console.log(`young generation: ${(grown / 1e6).toFixed(1)} MB → ${(after / 1e6).toFixed(1)} MB`);
    expect(grown).toBeGreaterThan(8_000_000);
    expect(after).toBeLessThan(grown / 4);
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe(hadGc);
  }, 60_000);
});
