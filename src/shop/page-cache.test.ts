import { describe, expect, it } from 'vitest';
import { ChangeCounter } from '../platform/change-counter.js';
import { createPageCache } from './page-cache.js';
import type { ShopContext } from './shop-context.js';

const shop = {
  store: { id: 's1', slug: 'a', name: 'A', currency: 'USD', logo: null, colors: {} },
  base: '/shop/a',
  origin: 'http://localhost',
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
});
