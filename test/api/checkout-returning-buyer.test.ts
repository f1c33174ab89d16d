import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTogether } from '../../src/platform/db/read-together.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody } from '../helpers/order-factories.js';

/**
 * A returning buyer's checkout finds the customer by e-mail and locks it, but writes it only when
 * the checkout fills in a name or phone the record lacks (issue 34: the upsert wrote a row version
 * for nothing, before the buyer's totals wrote another). The customer and the order stay as before.
 */
let app: TestApp;
let api: Client;
let shop: Client;
let storeId: string;
let slug: string;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  slug = store.store.slug;
  api = client(app, store.key);
  shop = client(app);
});
afterAll(() => app.close());

const card = (email: string) => ({ email, paymentMethod: 'test_card', cardToken: 'tok_visa' });

/**
 * Whether one readTogether of buyerQueries wrote the buyer's row (its version's xmin is then this
 * transaction; a lock alone leaves it), and the buyer found; in a transaction rolled back.
 */
async function buyerWrites(customer: { email: string; first_name?: string; phone?: string }) {
  const customers = app.services.customers;
  let written: boolean | undefined;
  let found: { id: string; first_name: string | null; phone: string | null } | undefined;
  await app.database.db
    .transaction()
    .execute(async (tx) => {
      const queries = customers.buyerQueries(tx, storeId, customer);
      if (!queries) throw new Error('no buyer queries');
      const read = await readTogether(tx, {
        buyer: { query: queries.upsert },
        buyerNow: queries.current && { query: queries.current },
      });
      found = await customers.buyerFromRead(tx, storeId, customer, {
        upsert: read.buyer ?? [],
        current: read.buyerNow,
      });
      const version = await sql<{ ours: boolean }>`
        SELECT xmin::text = (pg_current_xact_id()::xid)::text AS ours FROM customers
        WHERE store_id = ${storeId} AND id = ${found?.id ?? null}`.execute(tx);
      written = version.rows[0]?.ours;
      throw new Error('roll back');
    })
    .catch((error: Error) => {
      if (error.message !== 'roll back') throw error;
    });
  return { written, found };
}

describe('a returning buyer', () => {
  it('is locked and read, not written, when there is nothing to fill in; written when there is', async () => {
    const email = `returning.${Date.now()}@example.com`;
    const created = await buyerWrites({ email, first_name: 'Ada' });
    expect(created.written).toBe(true);
    const p = await createProduct(api, { inventory: 10, price: '5.00' });
    const res = await shop.post(
      `/api/storefront/${slug}/checkout`,
      checkoutBody([{ productId: p.id, quantity: 1 }], { ...card(email), firstName: 'Ada' }),
    );
    expect(res.statusCode).toBe(201);
    const order = await sql<{ customer_id: string }>`
      SELECT customer_id FROM orders WHERE store_id = ${storeId} AND id = ${res.json().data.id}`.execute(
      app.database.db,
    );

    const again = await buyerWrites({ email: email.toUpperCase(), first_name: 'Ada' });
    expect(again.written).toBe(false);
    expect(again.found?.first_name).toBe('Ada');
    expect(again.found?.id).toBe(order.rows[0]?.customer_id);

    const filled = await buyerWrites({ email, phone: '+15550100' });
    expect(filled.written).toBe(true);
    expect(filled.found?.phone).toBe('+15550100');
    expect(filled.found?.id).toBe(again.found?.id);
  });

  it('created by a concurrent first checkout after the statement began: found, one customer', async () => {
    const email = `race.${Date.now()}@example.com`;
    const customers = app.services.customers;
    // The first transaction creates the customer and holds it uncommitted.
    const first = await app.database.pool.connect();
    try {
      await first.query('BEGIN');
      const inserted = await first.query<{ id: string }>(
        `INSERT INTO customers (id, store_id, email, first_name, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, $2, 'Bo', now(), now()) RETURNING id`,
        [storeId, email],
      );
      // The second one's statement starts (its snapshot without the customer) and waits on the key.
      const second = app.database.db.transaction().execute(async (tx) => {
        const queries = customers.buyerQueries(tx, storeId, { email, first_name: 'Bo' });
        if (!queries) throw new Error('no buyer queries');
        const read = await readTogether(tx, {
          buyer: { query: queries.upsert },
          buyerNow: queries.current && { query: queries.current },
        });
        return {
          read,
          buyer: await customers.buyerFromRead(
            tx,
            storeId,
            { email, first_name: 'Bo' },
            {
              upsert: read.buyer ?? [],
              current: read.buyerNow,
            },
          ),
        };
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await first.query('COMMIT');
      const { read, buyer } = await second;
      // Neither part of the statement saw the row: the buyer came from the read after it.
      expect(read.buyer).toEqual([]);
      expect(read.buyerNow).toEqual([]);
      expect(buyer?.id).toBe(inserted.rows[0]?.id);
    } finally {
      first.release();
    }
    const count = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM customers WHERE store_id = ${storeId} AND lower(email) = ${email}`.execute(
      app.database.db,
    );
    expect(count.rows[0]?.n).toBe(1);
  });
});
