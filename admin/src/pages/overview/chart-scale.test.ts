import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { niceTicks, xLabels } from './chart-scale';

describe('niceTicks', () => {
  it.each([
    [0, [0, 1]],
    [-5, [0, 1]],
    [1, [0, 0.25, 0.5, 0.75, 1]],
    [7, [0, 2, 4, 6, 8]],
    [100, [0, 25, 50, 75, 100]],
    [101, [0, 50, 100, 150]],
    [1234.56, [0, 500, 1000, 1500]],
    [0.3, [0, 0.1, 0.2, 0.3]],
    [999_999, [0, 250_000, 500_000, 750_000, 1_000_000]],
  ])('niceTicks(%d) = %j', (max, ticks) => {
    expect(niceTicks(max)).toEqual(ticks);
  });

  it('starts at 0, steps by a round step and covers the maximum (give or take 0.1 % of a step)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 1e9, noNaN: true }), (max) => {
        const ticks = niceTicks(max);
        expect(ticks[0]).toBe(0);
        expect(ticks.length).toBeGreaterThanOrEqual(2);
        expect(ticks.length).toBeLessThanOrEqual(6);
        const step = ticks[1] as number;
        expect(ticks.at(-1)).toBeGreaterThanOrEqual(max - step * 0.001);
        for (const [i, tick] of ticks.entries()) expect(tick).toBeCloseTo(i * step, 6);
        const mantissa = Number((step / 10 ** Math.floor(Math.log10(step))).toPrecision(6));
        expect([1, 2, 2.5, 5]).toContain(mantissa);
      }),
    );
  });
});

describe('xLabels', () => {
  it.each([
    [0, []],
    [1, [0]],
    [2, [0, 1]],
    [6, [0, 1, 2, 3, 4, 5]],
    [7, [0, 1, 2, 4, 5, 6]],
    [30, [0, 6, 12, 17, 23, 29]],
  ])('%i points → labels at %j', (count, indexes) => {
    expect(xLabels(Array.from({ length: count }))).toEqual(indexes);
  });

  it('labels at most six points, the first and the last among them', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 400 }), (count) => {
        const indexes = xLabels(Array.from({ length: count }));
        expect(indexes.length).toBe(Math.min(count, 6));
        expect(indexes[0]).toBe(0);
        expect(indexes.at(-1)).toBe(count - 1);
        expect([...indexes].sort((a, b) => a - b)).toEqual(indexes);
      }),
    );
  });
});
