import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedStore } from '../../src/seed/seed.js';
import { rollupMismatches } from '../helpers/analytics-checks.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createTestDatabase } from '../helpers/database.js';
import { createCustomers, createStoreWithKey } from '../helpers/factories.js';

/**
 * Issue 29, item 6, beyond the seed: a timezone change rebuilds the store's analytics from its orders
 * (analytics_rebuild, in the PATCH's transaction). Autovacuum analyses a table only after a tenth
 * of it changed, so a store that grew from nothing since the last ANALYZE is absent from the
 * planner's statistics: every statement of the rebuild is estimated at one row. It used to choose
 * nested loops over every pair of the store's orders and lines (minutes for 20,000 orders); a
 * rebuild must take time in proportion to the store, whatever the statistics say.
 */
const ORDERS = 20_000;
const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'correct horse battery';
/** The PATCH fails with 503 past this instead of hanging the test; the rebuild takes a few seconds. */
const STATEMENT_TIMEOUT = '30s';

let app: TestApp;
let storeId: string;
let email: string;

beforeAll(async () => {
  const testDatabase = await createTestDatabase();
  const admin = new pg.Client({ connectionString: testDatabase.url });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE "${testDatabase.name}" SET statement_timeout = '${STATEMENT_TIMEOUT}'`);
    // The statistics stay what the last ANALYZE saw, as between two autovacuum runs on a big table.
    await admin.query(
      'ALTER TABLE orders SET (autovacuum_enabled = false); ALTER TABLE order_line_items SET (autovacuum_enabled = false)',
    );
  } finally {
    await admin.end();
  }
  app = await buildTestApp({ testDatabase, config: { ...UNLIMITED, publicUrl: ORIGIN } });

  // A first store with history: its seed analyses the order tables, which then describe it alone.
  const first = await createStoreWithKey(app);
  await seedStore(
    app.services,
    app.mediaStorage,
    { storeSlug: first.store.slug, products: 3, customers: 0, orders: 300 },
    app.database.db,
  );

  // The second store's orders arrive afterwards, unseen by the statistics.
  const second = await createStoreWithKey(app);
  storeId = second.store.id;
  email = `owner.${Date.now()}@example.com`;
  await app.services.stores.createAdminUser({ email, password: PASSWORD, storeSlug: second.store.slug });
  const api = client(app, second.key);
  const products = [await createProduct(api, { name: 'Mug' }), await createProduct(api, { name: 'Cap' })];
  await createCustomers(app, storeId, 2000);
  await app.database.db.transaction().execute(async (tx) => {
    await sql`SET LOCAL emporium.analytics_paused = 'on'`.execute(tx);
    await sql`
      INSERT INTO orders (id, store_id, order_number, status, payment_status, fulfillment_status, currency,
        subtotal, total, amount_paid, customer_email, customer_id, created_at)
      SELECT gen_random_uuid(), ${storeId}, 1000 + g,
        CASE WHEN g % 10 = 0 THEN 'cancelled' ELSE 'processing' END,
        CASE WHEN g % 10 = 0 THEN 'unpaid' ELSE 'paid' END, 'unfulfilled', 'USD',
        1000 + g % 97, 1000 + g % 97, CASE WHEN g % 10 = 0 THEN 0 ELSE 1000 + g % 97 END,
        c.email, c.id, now() - g * interval '25 minutes'
      FROM generate_series(1, ${ORDERS}::int) g
      JOIN (SELECT id, email, row_number() OVER (ORDER BY id) AS n FROM customers WHERE store_id = ${storeId}) c
        ON c.n = 1 + g % 2000`.execute(tx);
    await sql`
      INSERT INTO order_line_items (id, store_id, order_id, product_id, name, quantity, price, position)
      SELECT gen_random_uuid(), o.store_id, o.id, p.id, p.name, 1 + p.n, 500, p.n
      FROM orders o
      CROSS JOIN (VALUES (${products[0]?.id}::uuid, 'Mug', 0), (${products[1]?.id}::uuid, 'Cap', 1)) p (id, name, n)
      WHERE o.store_id = ${storeId}`.execute(tx);
  });
}, 120_000);
afterAll(() => app.close());

const request = (method: 'POST' | 'PATCH', url: string, headers: Record<string, string>, payload: object) =>
  app.server.inject({ method, url, headers, payload });

describe('analytics rebuild on statistics that have never seen the store', () => {
  it('a timezone change rebuilds 20,000 orders in seconds, and the rollups match the orders', async () => {
    const login = await request('POST', '/api/admin/auth/login', {}, { email, password: PASSWORD });
    expect(login.statusCode, login.body).toBe(200);
    const cookie = String(login.headers['set-cookie']).split(';')[0] as string;

    const started = performance.now();
    const res = await request(
      'PATCH',
      '/api/admin/store',
      { cookie, origin: ORIGIN },
      { timezone: 'Asia/Tokyo' },
    );
    const elapsedMs = performance.now() - started;
    expect(res.statusCode, res.body).toBe(200);
    expect(elapsedMs).toBeLessThan(15_000);

    expect(await rollupMismatches(app.database.pool, storeId)).toEqual([]);
    const { rows } = await app.database.pool.query(
      `SELECT (SELECT sum(quantity) FROM analytics_product_sales WHERE store_id = $1 AND grain = 'month') AS rolled,
         (SELECT sum(li.quantity) FROM order_line_items li JOIN orders o ON o.id = li.order_id
          WHERE o.store_id = $1 AND o.status <> 'cancelled') AS counted,
         (SELECT count(*) FROM analytics_customers WHERE store_id = $1) AS buyers`,
      [storeId],
    );
    expect(Number(rows[0].rolled)).toBe(Number(rows[0].counted));
    expect(Number(rows[0].buyers)).toBe(2000);
  }, 120_000);
});
