import { describe, expect, it } from 'vitest';
import { ChangeCounter } from '../platform/change-counter.js';
import { createPageCache } from './page-cache.js';
import type { ShopContext } from './shop-context.js';

const shop = {
  store: { id: 's1', slug: 'a', name: 'A', currency: 'USD', logo: null, colors: {} },
  base: '/shop/a',
  origin: 'http://localhost',
  home: 'http://localhost/shop/a',
} as unknown as ShopContext;

function setUp() {
  let clock = 1_000;
  const changes = new ChangeCounter();
  const cache = createPageCache({ changes, ttlMs: 5_000, now: () => clock, random: () => 0.5 });
  let renders = 0;
  const render = async () => `page ${++renders}`;
  const get = async () => (await cache.get(shop, '/products', 'html', render)).body.toString();
  return { changes, get, advance: (ms: number) => (clock += ms), rendersSoFar: () => renders };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the shop page cache', () => {
  it('renders once while fresh, and shares one render between concurrent misses', async () => {
    const t = setUp();
    expect(await Promise.all([t.get(), t.get(), t.get()])).toEqual(['page 1', 'page 1', 'page 1']);
    t.advance(2_000);
    expect(await t.get()).toBe('page 1');
    expect(t.rendersSoFar()).toBe(1);
  });

  it('serves a page past its fresh part (60–80% of the TTL) while one re-render runs, then the new one', async () => {
    const t = setUp();
    await t.get();
    t.advance(3_500);
    expect(await Promise.all([t.get(), t.get()])).toEqual(['page 1', 'page 1']);
    await settle();
    expect(t.rendersSoFar()).toBe(2);
    expect(await t.get()).toBe('page 2');
  });

  it('never serves a page past its TTL', async () => {
    const t = setUp();
    await t.get();
    t.advance(5_000);
    expect(await t.get()).toBe('page 2');
  });

  it('drops a store’s pages when its catalogue version changes', async () => {
    const t = setUp();
    await t.get();
    t.changes.bump('s1');
    expect(await t.get()).toBe('page 2');
    t.changes.bump('another store');
    expect(await t.get()).toBe('page 2');
  });

  it('forgets a failed render: the next request renders again', async () => {
    const changes = new ChangeCounter();
    const cache = createPageCache({ changes, ttlMs: 5_000 });
    let fail = true;
    const render = async () => {
      if (fail) throw new Error('not found');
      return 'ok';
    };
    await expect(cache.get(shop, '/x', 'html', render)).rejects.toThrow('not found');
    fail = false;
    expect((await cache.get(shop, '/x', 'html', render)).body.toString()).toBe('ok');
  });

  it('holds only the answers of the last TTL: older ones go at the next render, not at the bound', async () => {
    let clock = 1_000;
    const cache = createPageCache({ changes: new ChangeCounter(), ttlMs: 5_000, now: () => clock });
    const render = async () => 'page';
    for (let i = 0; i < 50; i++) {
      await cache.get(shop, `/products/${i}`, 'html', render);
      clock += 1_000;
    }
    // Rendered at 46–50 s (the one just rendered included); the 45 earlier ones are past the TTL.
    expect(cache.size()).toBe(5);
    clock += 5_000;
    await cache.get(shop, '/products/0', 'html', render);
    expect(cache.size()).toBe(1);
  });
});
