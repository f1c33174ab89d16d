import { describe, expect, it } from 'vitest';
import { isUuid, newId } from './ids.js';

describe('newId', () => {
  it('makes RFC 9562 version 7 ids carrying the current time, strictly increasing and unique', () => {
    const before = Date.now();
    const ids = Array.from({ length: 5000 }, () => newId());
    const after = Date.now();
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7'); // version
      expect('89ab').toContain(id[19]); // variant 10xx
      const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
      expect(ms).toBeGreaterThanOrEqual(before);
      expect(ms).toBeLessThanOrEqual(after + 1);
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draws fresh randomness past the pool refill (no repeated tail bits after 1,024 words)', () => {
    const tails = new Set(Array.from({ length: 3000 }, () => newId().slice(24)));
    expect(tails.size).toBe(3000);
  });
});
