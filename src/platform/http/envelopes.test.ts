import { describe, expect, it } from 'vitest';
import { listEnvelope, offsetOf, pageOf, pagination } from './envelopes.js';

describe('pagination', () => {
  it.each([
    // page, limit, total → total_pages, has_next, has_prev
    [1, 20, 0, 0, false, false],
    [2, 20, 0, 0, false, true],
    [1, 20, 1, 1, false, false],
    [1, 20, 20, 1, false, false],
    [1, 20, 21, 2, true, false],
    [1, 20, 45, 3, true, false],
    [2, 20, 45, 3, true, true],
    [3, 20, 45, 3, false, true],
    [9, 20, 45, 3, false, true],
    [1, 1, 45, 45, true, false],
    [45, 1, 45, 45, false, true],
    [1, 100, 100, 1, false, false],
    [1, 100, 101, 2, true, false],
  ])('page %i, limit %i, total %i → %i pages, next %s, prev %s', (page, limit, total, pages, next, prev) => {
    expect(pagination({ page, limit }, total)).toEqual({
      page,
      limit,
      total,
      total_pages: pages,
      has_next: next,
      has_prev: prev,
    });
  });
});

describe('page helpers', () => {
  it('defaults to page 1 and limit 20', () => {
    expect(pageOf({})).toEqual({ page: 1, limit: 20 });
    expect(pageOf({ page: 3 })).toEqual({ page: 3, limit: 20 });
    expect(pageOf({ limit: 5 })).toEqual({ page: 1, limit: 5 });
  });

  it('turns a page into a row offset', () => {
    expect(offsetOf({ page: 1, limit: 20 })).toBe(0);
    expect(offsetOf({ page: 3, limit: 20 })).toBe(40);
    expect(offsetOf({ page: 7, limit: 1 })).toBe(6);
  });

  it('wraps a page of rows in the list envelope', () => {
    expect(listEnvelope([{ id: 'a' }], { page: 2, limit: 1 }, 2)).toEqual({
      data: [{ id: 'a' }],
      meta: { pagination: { page: 2, limit: 1, total: 2, total_pages: 2, has_next: false, has_prev: true } },
    });
    expect(listEnvelope([], { page: 1, limit: 20 }, 0)).toEqual({
      data: [],
      meta: {
        pagination: { page: 1, limit: 20, total: 0, total_pages: 0, has_next: false, has_prev: false },
      },
    });
  });
});
