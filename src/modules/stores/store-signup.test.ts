import { describe, expect, it } from 'vitest';
import { firstFreeSlug, slugBaseOf } from './store-signup.js';

describe('slugBaseOf', () => {
  it.each([
    ["Bob's Shop", 'bobs-shop'],
    ['  Café  Crème  ', 'cafe-creme'],
    ['Ünïque Store 7', 'unique-store-7'],
    ['<script>alert(1)</script> & Co', 'script-alert-1-script-co'],
    ['---', 'store'],
    ['日本の店', 'store'],
    ['A'.repeat(80), 'a'.repeat(56)],
    [`${'a'.repeat(55)} b`, 'a'.repeat(55)],
  ])('%s → %s', (name, slug) => {
    expect(slugBaseOf(name)).toBe(slug);
    expect(slug).toMatch(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/);
  });
});

describe('firstFreeSlug', () => {
  it('takes the base, then -2, -3 … the first free', () => {
    expect(firstFreeSlug('bobs-shop', [])).toBe('bobs-shop');
    expect(firstFreeSlug('bobs-shop', ['bobs-shop'])).toBe('bobs-shop-2');
    expect(firstFreeSlug('bobs-shop', ['bobs-shop', 'bobs-shop-2', 'bobs-shop-4'])).toBe('bobs-shop-3');
    expect(firstFreeSlug('bobs-shop', ['bobs-shop-2'])).toBe('bobs-shop');
  });
});
