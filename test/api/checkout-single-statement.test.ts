import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, eventsOf, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody } from '../helpers/order-factories.js';

/**
 * Without a discount, a checkout's last stock move, the order number and all of the order's writes
 * (order, lines, buyer totals, events, pushes) are one statement whose writes run only when that
 * stock moved (WriteBatch.gated). These check both sides: an order whose last line (in lock order)
 * is short leaves nothing behind, and a placed order carries the number taken in that statement in
 * its row, its answer and its events.
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

const checkout = (body: unknown) => shop.post(`/api/storefront/${slug}/checkout`, body);
const stockOf = async (id: string) => (await api.get(`/api/v1/inventory/${id}`)).json().data.inventory;
const card = (email: string) => ({ email, paymentMethod: 'test_card', cardToken: 'tok_visa' });

describe('checkout in one statement after the stock', () => {
  it('a short last line: 409, and no order, line, event, buyer total or order number left behind', async () => {
    const email = `gated.${Date.now()}@example.com`;
    const first = await createProduct(api, { inventory: 5, price: '10.00' });
    // Ids are time-ordered: created last, this product is moved last (the statement with the tail).
    const short = await createProduct(api, { inventory: 1, price: '4.00' });
    expect(short.id > first.id).toBe(true);

    const placed = await checkout(checkoutBody([{ productId: first.id, quantity: 1 }], card(email)));
    expect(placed.statusCode).toBe(201);
    const number = Number(placed.json().data.orderNumber);
    const eventsBefore = await eventsOf(app.database.db, storeId);
    const buyerBefore = await app.database.db
      .selectFrom('customers')
      .select(['orders_count', 'total_spent'])
      .where('store_id', '=', storeId)
      .where('email', '=', email)
      .executeTakeFirstOrThrow();

    const refused = await checkout(
      checkoutBody(
        [
          { productId: first.id, quantity: 2 },
          { productId: short.id, quantity: 2 },
        ],
        card(email),
      ),
    );
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('insufficient_stock');
    expect(await stockOf(first.id)).toBe(4);
    expect(await stockOf(short.id)).toBe(1);
    expect(await eventsOf(app.database.db, storeId)).toEqual(eventsBefore);
    const buyerAfter = await app.database.db
      .selectFrom('customers')
      .select(['orders_count', 'total_spent'])
      .where('store_id', '=', storeId)
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(buyerAfter).toEqual(buyerBefore);
    const orders = await app.database.db
      .selectFrom('orders')
      .select('id')
      .where('store_id', '=', storeId)
      .execute();
    expect(orders).toHaveLength(1);
    const lines = await app.database.db
      .selectFrom('order_line_items')
      .select('id')
      .where('store_id', '=', storeId)
      .execute();
    expect(lines).toHaveLength(1);

    // The counter did not move either: the next order takes the next number.
    const next = await checkout(checkoutBody([{ productId: short.id, quantity: 1 }], card(email)));
    expect(next.statusCode).toBe(201);
    expect(Number(next.json().data.orderNumber)).toBe(number + 1);
  });

  it('writes the number taken in the statement into the row, the answer and both events', async () => {
    const p = await createProduct(api, { inventory: 10, price: '7.00' });
    const q = await createProduct(api, { inventory: 10, price: '3.00' });
    const res = await checkout(
      checkoutBody(
        [
          { productId: p.id, quantity: 2 },
          { productId: q.id, quantity: 1 },
        ],
        card(`numbers.${Date.now()}@example.com`),
      ),
    );
    expect(res.statusCode).toBe(201);
    const order = res.json().data;
    const row = await app.database.db
      .selectFrom('orders')
      .select(['order_number', 'total', 'amount_paid', 'status'])
      .where('id', '=', order.id)
      .executeTakeFirstOrThrow();
    expect(String(row.order_number)).toBe(order.orderNumber);
    expect(row).toMatchObject({ total: 1700, amount_paid: 1700, status: 'processing' });
    const lines = await app.database.db
      .selectFrom('order_line_items')
      .select(['product_id', 'quantity', 'position'])
      .where('order_id', '=', order.id)
      .orderBy('position')
      .execute();
    expect(lines).toEqual([
      { product_id: p.id, quantity: 2, position: 0 },
      { product_id: q.id, quantity: 1, position: 1 },
    ]);
    const events = (await eventsOf(app.database.db, storeId)).filter(
      (e) => (e.data as { orderId?: string }).orderId === order.id,
    );
    expect(events.map((e) => e.name)).toEqual(['order.created', 'order.paid']);
    for (const event of events)
      expect(event.data).toMatchObject({ orderNumber: order.orderNumber, itemCount: 3, total: 17 });
    expect(JSON.stringify(events)).not.toContain('late-number');
  });

  it('holds the product row for one statement: BEGIN, reads, stock + number + writes, COMMIT', async () => {
    const p = await createProduct(api, { inventory: 10, price: '5.00' });
    const body = checkoutBody([{ productId: p.id, quantity: 1 }], card(`count.${Date.now()}@example.com`));
    await checkout(body); // a first request warms the store's caches
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text: string };
      sent.push(typeof first === 'string' ? first : first.text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      const res = await checkout({ ...body, email: `count2.${Date.now()}@example.com` });
      expect(res.statusCode).toBe(201);
    } finally {
      pg.Client.prototype.query = query;
    }
    const begin = sent.findIndex((s) => /^begin/i.test(s.trim()));
    const commit = sent.findIndex((s) => /^commit/i.test(s.trim()));
    const inside = sent.slice(begin + 1, commit);
    const stock = inside.findIndex((s) => /UPDATE products/.test(s));
    expect(inside).toHaveLength(2);
    // The stock statement takes the number and writes the order, its line, the buyer's totals and the events.
    expect(stock).toBe(1);
    for (const write of [
      /INSERT INTO order_counters/,
      /insert into "orders"/,
      /insert into "order_line_items"/,
      /UPDATE customers SET orders_count/,
      /insert into "events"/,
    ])
      expect(inside[stock]).toMatch(write);
  });
});
