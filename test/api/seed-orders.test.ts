import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buyersFor, seedStore } from '../../src/seed/seed.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  type ProductData,
  sizedProduct,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody, createOrder, setPricing } from '../helpers/order-factories.js';

/** `seed --orders`: bulk history that keeps every invariant the order list and customers rely on. */

const ORDERS = 500;
const DAY_MS = 24 * 3600 * 1000;

let app: TestApp;
let api: Client;
let storeId: string;
let slug: string;
let plain: ProductData;
let sized: ProductData;
let seededAt: number;

const numbersOf = (body: { data: Array<{ order_number: string }> }) =>
  body.data.map((o) => Number(o.order_number));
const range = (from: number, to: number) =>
  Array.from({ length: Math.abs(to - from) + 1 }, (_, i) => (from > to ? from - i : from + i));
const stockOf = async (id: string) => (await api.get(`/api/v1/inventory/${id}`)).json().data;
const seed = (orders: number) =>
  seedStore(
    app.services,
    app.mediaStorage,
    { storeSlug: slug, products: 0, customers: 0, orders },
    app.database.db,
  );

/** Rows of the store breaking a rule; each query returns the offending orders (none expected). */
async function violations() {
  const db = app.database.db;
  const rows = async (query: ReturnType<typeof sql>) => (await query.execute(db)).rows;
  return {
    arithmetic: await rows(sql`
      SELECT o.order_number FROM orders o
      WHERE o.store_id = ${storeId} AND (
        o.total <> o.subtotal - o.discount_amount + o.shipping_amount + o.tax_amount
        OR o.subtotal <> (SELECT sum(li.quantity * li.price) FROM order_line_items li WHERE li.order_id = o.id)
        OR o.amount_paid <> CASE WHEN o.payment_status IN ('paid', 'refund_due', 'partially_refunded', 'refunded')
          THEN o.total ELSE 0 END
        OR o.amount_refunded <> (SELECT COALESCE(sum(r.amount), 0) FROM refunds r WHERE r.order_id = o.id)
        OR o.payment_status <> CASE
          WHEN o.amount_refunded = 0 THEN o.payment_status
          WHEN o.amount_refunded >= o.amount_paid THEN 'refunded' ELSE 'partially_refunded' END)`),
    statuses: await rows(sql`
      SELECT order_number, status, payment_status, fulfillment_status FROM orders
      WHERE store_id = ${storeId} AND NOT (
        (status = 'pending' AND payment_status = 'unpaid' AND fulfillment_status = 'unfulfilled' AND paid_at IS NULL)
        OR (status = 'processing' AND payment_status = 'paid' AND fulfillment_status = 'unfulfilled' AND paid_at IS NOT NULL)
        OR (status = 'completed' AND payment_status IN ('paid', 'partially_refunded', 'refunded')
            AND fulfillment_status = 'fulfilled'
            AND fulfilled_at >= paid_at AND paid_at >= created_at
            AND EXISTS (SELECT 1 FROM order_fulfillments f WHERE f.order_id = orders.id))
        OR (status = 'on_hold' AND fulfillment_status = 'unfulfilled' AND (
            (status_before_hold = 'processing' AND payment_status = 'paid')
            OR (status_before_hold = 'pending' AND payment_status = 'unpaid')))
        OR (status = 'cancelled' AND fulfillment_status = 'unfulfilled' AND cancelled_at >= created_at
            AND cancel_reason IS NOT NULL AND payment_status IN ('unpaid', 'refund_due')))`),
    // Creation times rise with the number (ties allowed only when a period is full).
    // A refund follows its order's delivery, and is one the store recorded itself.
    refunds: await rows(sql`
      SELECT o.order_number FROM refunds r JOIN orders o ON o.id = r.order_id
      WHERE r.store_id = ${storeId} AND NOT (r.status = 'succeeded' AND r.created_at >= o.fulfilled_at
        AND r.created_at <= o.updated_at AND r.amount > 0 AND r.provider IN ('manual', 'test_card'))`),
    timeline: await rows(sql`
      SELECT order_number FROM (
        SELECT order_number, created_at, lag(created_at) OVER (ORDER BY order_number) AS previous
        FROM orders WHERE store_id = ${storeId}) t
      WHERE created_at < previous`),
    customers: await rows(sql`
      SELECT c.id FROM customers c
      LEFT JOIN (
        SELECT customer_id, count(*) AS n,
          COALESCE(sum(amount_paid - amount_refunded) FILTER (WHERE status <> 'cancelled'), 0) AS spent
        FROM orders WHERE store_id = ${storeId} GROUP BY customer_id) s ON s.customer_id = c.id
      WHERE c.store_id = ${storeId}
        AND (c.orders_count <> COALESCE(s.n, 0) OR c.total_spent <> COALESCE(s.spent, 0))`),
  };
}

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const created = await createStoreWithKey(app);
  storeId = created.store.id;
  slug = created.store.slug;
  api = client(app, created.key);
  await setPricing(app, storeId, {
    shipping_flat_rate: 500,
    free_shipping_threshold: 5000,
    tax_rate_bps: 800,
  });
  plain = await createProduct(api, { price: '12.50', inventory: 40, name: 'Mug' });
  sized = await createProduct(api, sizedProduct({ S: 5, M: 6, L: 7 }));
  await createProduct(api, { name: 'Hidden draft', status: 'draft', inventory: 3 });
  seededAt = Date.now();
  const result = await seed(ORDERS);
  expect(result).toMatchObject({ products: 0, customers: buyersFor(ORDERS), orders: ORDERS });
}, 60_000);
afterAll(() => app.close());

describe('seed --orders', () => {
  it('lists them newest first, numbered 1001..1500, with exact pagination', async () => {
    const first = (await api.get('/api/v1/orders?limit=50')).json();
    expect(first.meta.pagination).toEqual({
      page: 1,
      limit: 50,
      total: ORDERS,
      total_pages: 10,
      has_next: true,
      has_prev: false,
      next_cursor: expect.any(String),
    });
    expect(numbersOf(first)).toEqual(range(1500, 1451));
    const times = first.data.map((o: { created_at: string }) => Date.parse(o.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const third = (await api.get('/api/v1/orders?limit=50&page=3')).json();
    expect(numbersOf(third)).toEqual(range(1400, 1351));
    expect(third.meta.pagination).toMatchObject({ page: 3, total: ORDERS, has_next: true, has_prev: true });
    const last = (await api.get('/api/v1/orders?limit=50&page=10')).json();
    expect(numbersOf(last)).toEqual(range(1050, 1001));
    expect(last.meta.pagination.has_next).toBe(false);
  });

  it('spreads them over the last twelve months with a realistic mix of statuses', async () => {
    const spread = (
      await sql<{ oldest: Date; newest: Date }>`
        SELECT min(created_at) AS oldest, max(created_at) AS newest FROM orders WHERE store_id = ${storeId}`.execute(
        app.database.db,
      )
    ).rows[0];
    expect(spread?.oldest.getTime()).toBeGreaterThanOrEqual(seededAt - 365 * DAY_MS);
    expect(spread?.oldest.getTime()).toBeLessThan(seededAt - 300 * DAY_MS);
    expect(spread?.newest.getTime()).toBeLessThanOrEqual(Date.now());
    expect(spread?.newest.getTime()).toBeGreaterThan(seededAt - 10 * DAY_MS);

    const byStatus = async (status: string) =>
      (await api.get(`/api/v1/orders?limit=1&status=${status}`)).json().meta.pagination.total as number;
    const counts: Partial<Record<string, number>> = Object.fromEntries(
      await Promise.all(
        ['pending', 'processing', 'on_hold', 'completed', 'cancelled'].map(async (s) => [
          s,
          await byStatus(s),
        ]),
      ),
    );
    expect(Object.values(counts).reduce((a = 0, b = 0) => a + b, 0)).toBe(ORDERS);
    expect((counts.completed ?? 0) + (counts.processing ?? 0)).toBeGreaterThan(ORDERS * 0.8);
    expect(counts.cancelled).toBeGreaterThan(0);
    expect(counts.cancelled).toBeLessThan(ORDERS * 0.15);
  });

  it('keeps every order consistent: amounts, statuses, times, buyers', async () => {
    expect(await violations()).toEqual({
      arithmetic: [],
      statuses: [],
      refunds: [],
      timeline: [],
      customers: [],
    });
  });

  it('shows full records: lines of the store products, with their variants and prices', async () => {
    const list = (await api.get('/api/v1/orders?limit=100&status=completed')).json();
    const order = (await api.get(`/api/v1/orders/${list.data[0].id}`)).json().data;
    expect(order.line_items.length).toBeGreaterThan(0);
    expect(order.fulfillments).toHaveLength(1);
    expect(order.fulfillments[0]).toMatchObject({
      carrier: expect.any(String),
      tracking_number: expect.any(String),
    });
    for (const line of order.line_items) {
      expect([plain.id, sized.id]).toContain(line.product_id);
      if (line.product_id === plain.id)
        expect(line).toMatchObject({ variant_id: null, name: 'Mug', price: 12.5 });
      else expect(sized.variants.map((v) => v.id)).toContain(line.variant_id);
      expect(line.total).toBeCloseTo(line.price * line.quantity, 2);
    }
    expect(order.shipping_address).toMatchObject({ line1: expect.any(String), country: expect.any(String) });
    expect(order.balance_due).toBe(order.status === 'pending' ? order.total : 0);
  });

  it("a customer's orders_count and total_spent match their orders", async () => {
    const buyer = (
      await sql<{ customer_id: string }>`
        SELECT customer_id FROM orders WHERE store_id = ${storeId}
        GROUP BY customer_id ORDER BY count(*) DESC, customer_id LIMIT 1`.execute(app.database.db)
    ).rows[0]?.customer_id as string;
    const customer = (await api.get(`/api/v1/customers/${buyer}`)).json().data;
    const orders = (await api.get(`/api/v1/orders?customer_id=${buyer}&limit=100`)).json();
    expect(customer.orders_count).toBe(orders.meta.pagination.total);
    expect(customer.orders_count).toBeGreaterThan(1);
    const spent = orders.data
      .filter((o: { status: string }) => o.status !== 'cancelled')
      .reduce(
        (sum: number, o: { amount_paid: number; amount_refunded: number }) =>
          sum + Math.round(o.amount_paid * 100) - Math.round(o.amount_refunded * 100),
        0,
      );
    expect(Math.round(customer.total_spent * 100)).toBe(spent);
  });

  it('refunds a small share of the fulfilled orders, so analytics show net revenue', async () => {
    const refunded = (await api.get('/api/v1/orders?limit=1&payment_status=partially_refunded')).json().meta
      .pagination.total as number;
    const full = (await api.get('/api/v1/orders?limit=1&payment_status=refunded')).json().meta.pagination
      .total as number;
    expect(refunded + full).toBeGreaterThan(0);
    expect(refunded + full).toBeLessThan(ORDERS * 0.1);
    const order = (await api.get('/api/v1/orders?limit=1&payment_status=partially_refunded')).json().data[0];
    if (order) {
      const refunds = (await api.get(`/api/v1/orders/${order.id}/refunds`)).json().data;
      expect(refunds).toHaveLength(1);
      expect(refunds[0].amount).toBe(order.amount_refunded);
    }
    const analytics = (await api.get('/api/v1/analytics?interval=month')).json().data;
    const year = (
      await api.get(
        `/api/v1/analytics?from=${new Date(Date.now() - 364 * DAY_MS).toISOString().slice(0, 10)}&to=${new Date().toISOString().slice(0, 10)}`,
      )
    ).json().data;
    expect(analytics.totals.net_revenue).toBeLessThanOrEqual(analytics.totals.revenue);
    expect(year.totals.refunds).toBeGreaterThan(0);
    expect(year.totals.net_revenue).toBeCloseTo(year.totals.revenue - year.totals.refunds, 2);
  });

  it('leaves stock alone: seeded orders are history', async () => {
    expect((await stockOf(plain.id)).inventory).toBe(40);
    expect((await stockOf(sized.id)).inventory).toBe(18);
  });

  it('the next real orders continue the numbering: POST /orders 1501, checkout 1502', async () => {
    const manual = await createOrder(api, { items: [{ product_id: plain.id, quantity: 1 }] });
    expect(manual.order_number).toBe('1501');
    const res = await client(app).post(
      `/api/storefront/${slug}/checkout`,
      checkoutBody([{ productId: plain.id, quantity: 2 }]),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.orderNumber).toBe('1502');
    expect((await stockOf(plain.id)).inventory).toBe(37);

    const first = (await api.get('/api/v1/orders?limit=50')).json();
    expect(first.meta.pagination.total).toBe(ORDERS + 2);
    expect(numbersOf(first).slice(0, 3)).toEqual([1502, 1501, 1500]);
    expect(numbersOf((await api.get('/api/v1/orders?limit=50&page=3')).json())).toEqual(range(1402, 1353));
  });

  it('seeding again continues the numbering and the timeline after the newest order', async () => {
    const newest = (await api.get('/api/v1/orders?limit=1')).json().data[0];
    const result = await seed(120);
    expect(result.orders).toBe(120);
    const first = (await api.get('/api/v1/orders?limit=50')).json();
    expect(first.meta.pagination.total).toBe(ORDERS + 2 + 120);
    expect(numbersOf(first)).toEqual(range(1622, 1573));
    const oldestNew = (await api.get('/api/v1/orders?limit=1&page=120')).json().data[0];
    expect(oldestNew.order_number).toBe('1503');
    expect(Date.parse(oldestNew.created_at)).toBeGreaterThan(Date.parse(newest.created_at));
    expect(await violations()).toEqual({
      arithmetic: [],
      statuses: [],
      refunds: [],
      timeline: [],
      customers: [],
    });
    const next = await createOrder(api, { items: [{ product_id: plain.id, quantity: 1 }] });
    expect(next.order_number).toBe('1623');
  });
});

describe('seed --orders --days', () => {
  it('spreads the orders over the last N days instead of a year (the first-start demo uses 90)', async () => {
    const other = (await createStoreWithKey(app)).store;
    const startedAt = Date.now();
    await seedStore(
      app.services,
      app.mediaStorage,
      { storeSlug: other.slug, products: 3, customers: 0, orders: 200, days: 90 },
      app.database.db,
    );
    const spread = (
      await sql<{ oldest: Date; newest: Date; n: string }>`
        SELECT min(created_at) AS oldest, max(created_at) AS newest, count(*) AS n
        FROM orders WHERE store_id = ${other.id}`.execute(app.database.db)
    ).rows[0];
    expect(Number(spread?.n)).toBe(200);
    expect(spread?.oldest.getTime()).toBeGreaterThanOrEqual(startedAt - 90 * DAY_MS);
    expect(spread?.oldest.getTime()).toBeLessThan(startedAt - 80 * DAY_MS);
    expect(spread?.newest.getTime()).toBeGreaterThan(startedAt - 5 * DAY_MS);
  });
});
