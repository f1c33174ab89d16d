import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';

/*
 * The unfiltered orders list reads the counter and its page in one statement: every page must be the
 * classic OFFSET query's page with the exact count(*), empty stores and pages past the end included.
 */

let app: TestApp;
let api: Client;
let empty: Client;
let storeId: string;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  api = client(app, store.key);
  empty = client(app, (await createStoreWithKey(app)).key);
  const product = await createProduct(api, { inventory: 100, price: '1.00' });
  for (let i = 0; i < 7; i++)
    await createOrder(api, {
      customer: { email: `pages${i}@example.com` },
      items: [{ product_id: product.id, quantity: i + 1 }],
    });
});
afterAll(() => app.close());

describe('GET /api/v1/orders by page number, unfiltered', () => {
  it('answers every page as the classic OFFSET query and count(*) do', async () => {
    const count = await sql<{
      n: string;
    }>`SELECT count(*) AS n FROM orders WHERE store_id = ${storeId}`.execute(app.database.db);
    const total = Number(count.rows[0]?.n);
    expect(total).toBe(7);
    for (const limit of [1, 3, 7, 100]) {
      for (let page = 1; page <= Math.ceil(total / limit) + 1; page++) {
        const classic = await sql<{ id: string; item_count: number }>`SELECT o.id,
            (SELECT sum(quantity)::int FROM order_line_items li WHERE li.order_id = o.id) AS item_count
          FROM orders o WHERE store_id = ${storeId}
          ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${(page - 1) * limit}`.execute(
          app.database.db,
        );
        const body = (await api.get(`/api/v1/orders?limit=${limit}&page=${page}`)).json();
        const where = `limit ${limit}, page ${page}`;
        expect(
          body.data.map((o: { id: string; item_count: number }) => ({ id: o.id, item_count: o.item_count })),
          where,
        ).toEqual(classic.rows);
        expect(body.meta.pagination, where).toMatchObject({
          total,
          total_pages: Math.ceil(total / limit),
          has_next: page * limit < total,
          has_prev: page > 1,
        });
      }
    }
  });

  it('answers a store without orders with an empty list and a total of 0', async () => {
    for (const page of [1, 2]) {
      const body = (await empty.get(`/api/v1/orders?page=${page}`)).json();
      expect(body.data).toEqual([]);
      expect(body.meta.pagination).toMatchObject({ page, total: 0, total_pages: 0, has_next: false });
    }
  });
});

describe('GET /api/v1/orders as a prepared statement', () => {
  it('keeps answering after a migration adds a column to orders', async () => {
    const pages = async () => {
      // More requests than pooled connections, so that every connection has prepared the statement.
      for (let round = 0; round < 12; round++) {
        const res = await api.get(`/api/v1/orders?limit=3&page=${1 + (round % 3)}`);
        expect(res.statusCode).toBe(200);
        expect(res.json().meta.pagination.total).toBe(7);
      }
    };
    await pages();
    await sql`ALTER TABLE orders ADD COLUMN later_column text`.execute(app.database.db);
    try {
      await pages();
    } finally {
      await sql`ALTER TABLE orders DROP COLUMN later_column`.execute(app.database.db);
    }
    await pages();
  });
});
