import { describe, expect, it } from 'vitest';
import { stockCrossings, stockStatus } from './stock-status.js';

describe('stockCrossings (threshold 5)', () => {
  it.each([
    [10, 6, []],
    [10, 5, ['low_stock']],
    [6, 1, ['low_stock']],
    [5, 4, []],
    [3, 0, ['out_of_stock']],
    [10, 0, ['out_of_stock']],
    [0, 0, []],
    [0, 3, []],
    [0, 10, []],
    [4, 7, []],
  ])('%i → %i fires %j', (previous, next, expected) => {
    expect(stockCrossings(previous, next, 5)).toEqual(expected);
  });
});

describe('stockStatus', () => {
  it.each([
    [0, true, 5, 'out_of_stock'],
    [5, true, 5, 'low_stock'],
    [6, true, 5, 'in_stock'],
    [0, false, 5, 'in_stock'],
    [1, true, 0, 'in_stock'],
  ] as const)('%i tracked=%s threshold=%i → %s', (inventory, tracked, threshold, expected) => {
    expect(stockStatus(inventory, tracked, threshold)).toBe(expected);
  });
});
