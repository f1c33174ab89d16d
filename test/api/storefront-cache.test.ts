import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createProduct } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody } from '../helpers/order-factories.js';

/**
 * The storefront's cached product list and product page (issue 18) across two API processes on one
 * database: a change committed through either shows in the other's cached answers within
 * milliseconds (the change feed: LISTEN/NOTIFY), and no later than the caches' 5 s without it.
 */

let a: TestApp;
let b: TestApp;
let slug: string;
let merchant: ReturnType<typeof client>;

const get = (app: TestApp, url: string, headers: Record<string, string> = {}) =>
  app.server.inject({ method: 'GET', url: `/api/storefront/${slug}${url}`, headers });

/** Polls `read` until `done` holds or `ms` pass; answers how long it took (or fails the test). */
async function within<T>(ms: number, read: () => Promise<T>, done: (value: T) => boolean): Promise<number> {
  const started = performance.now();
  for (;;) {
    const value = await read();
    if (done(value)) return performance.now() - started;
    if (performance.now() - started > ms) {
      throw new Error(`still ${JSON.stringify(value)} after ${ms} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeAll(async () => {
  a = await buildTestApp({ changeFeed: true });
  b = await buildTestApp({ testDatabase: a.testDatabase, changeFeed: true });
  const shop = await createStoreWithKey(a);
  slug = shop.store.slug;
  merchant = client(a, shop.key);
});

afterAll(async () => {
  await b?.close();
  await a?.close();
});

describe('the storefront cache across two processes', () => {
  it('shows a price, a stock level and a status changed in one process in the other’s cached answers', async () => {
    const product = await createProduct(merchant, {
      name: 'Cached Lamp',
      slug: 'cached-lamp',
      price: '20.00',
      inventory: 1,
      track_inventory: true,
    });
    const listed = async () => {
      const res = await get(b, '/products?limit=50');
      expect(res.statusCode).toBe(200);
      return (res.json().data as Array<{ slug: string; price: string; inStock: boolean }>).find(
        (p) => p.slug === 'cached-lamp',
      );
    };
    const page = async () => {
      const res = await get(b, '/products/cached-lamp');
      return res.statusCode === 200
        ? (res.json().data.product as { price: string; inStock: boolean })
        : res.statusCode;
    };
    // Both answers are now in b's cache, each fresh for 2.5 s.
    await within(2_000, listed, (p) => p?.price === '20.00' && p.inStock);
    await within(2_000, page, (p) => typeof p === 'object' && p.price === '20.00');
    expect(await listed()).toMatchObject({ price: '20.00', inStock: true });

    const priced = await merchant.patch(`/api/v1/products/${product.id}`, { price: '25.00' });
    expect(priced.statusCode).toBe(200);
    const priceMs = await within(1_000, listed, (p) => p?.price === '25.00');
    await within(1_000, page, (p) => typeof p === 'object' && p.price === '25.00');

    // The last unit sold through a's checkout (a stock change inside the order's transaction).
    const order = await a.server.inject({
      method: 'POST',
      url: `/api/storefront/${slug}/checkout`,
      payload: checkoutBody([{ productId: product.id, quantity: 1 }]),
    });
    expect(order.statusCode, order.body).toBe(201);
    const stockMs = await within(1_000, listed, (p) => p?.inStock === false);
    await within(1_000, page, (p) => typeof p === 'object' && !p.inStock);

    const archived = await merchant.patch(`/api/v1/products/${product.id}`, { status: 'archived' });
    expect(archived.statusCode).toBe(200);
    await within(1_000, listed, (p) => p === undefined);
    await within(1_000, page, (p) => p === 404);
    // Far inside the caches' 5 s: the change came through the feed, not the TTL.
    expect(priceMs).toBeLessThan(1_000);
    expect(stockMs).toBeLessThan(1_000);
  });

  it('serves a cached answer with the ETag of its body, and 304 to that ETag', async () => {
    await createProduct(merchant, { name: 'Tagged Chair', slug: 'tagged-chair', price: '5.00' });
    const first = await get(b, '/products/tagged-chair');
    const second = await get(b, '/products/tagged-chair');
    expect(first.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(second.headers['cache-control']).toBe('public, max-age=30');
    const revalidated = await get(b, '/products/tagged-chair', {
      'if-none-match': String(first.headers.etag),
    });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.body).toBe('');
  });

  it('after the feed’s connection is cut, listens again and drops what it may have missed', async () => {
    const product = await createProduct(merchant, {
      name: 'Resilient Rug',
      slug: 'resilient-rug',
      price: '9.00',
    });
    const price = async () => (await get(b, '/products/resilient-rug')).json().data.product.price as string;
    await within(2_000, price, (p) => p === '9.00');
    // Cut every LISTEN connection of this database: both feeds lose theirs.
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`.execute(
      a.database.db,
    );
    // A change while b may not be listening: b learns of it when it listens again (a new epoch).
    const priced = await merchant.patch(`/api/v1/products/${product.id}`, { price: '11.00' });
    expect(priced.statusCode).toBe(200);
    await within(4_500, price, (p) => p === '11.00');
    // Listening again: the next change arrives through the feed.
    const listening = async () =>
      (
        await b.database.pool.query(
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
        )
      ).rowCount ?? 0;
    await within(4_000, listening, (n) => n >= 2);
    const again = await merchant.patch(`/api/v1/products/${product.id}`, { price: '12.00' });
    expect(again.statusCode).toBe(200);
    const ms = await within(1_000, price, (p) => p === '12.00');
    expect(ms).toBeLessThan(1_000);
  });
});
