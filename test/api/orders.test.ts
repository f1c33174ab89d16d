import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  eventsOf,
  type ProductData,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder, setPricing } from '../helpers/order-factories.js';

let app: TestApp;
let api: Client;
let other: Client;
let storeId: string;
let product: ProductData;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  api = client(app, store.key);
  other = client(app, (await createStoreWithKey(app)).key);
  await setPricing(app, storeId, { shipping_flat_rate: 500, tax_rate_bps: 0 });
  product = await createProduct(api, { price: '10.00', inventory: 1000, name: 'Widget' });
});
afterAll(() => app.close());

const stockOf = async (id: string) => (await api.get(`/api/v1/inventory/${id}`)).json().data.inventory;
const newOrder = (extra: Record<string, unknown> = {}) =>
  createOrder(api, { items: [{ product_id: product.id, quantity: 2 }], ...extra });
const lastEvent = async (name: string) =>
  (await eventsOf(app.database.db, storeId)).filter((e) => e.name === name).at(-1)?.data as Record<
    string,
    unknown
  >;

describe('POST /api/v1/orders', () => {
  it('creates a pending order with the full record', async () => {
    const order = await newOrder({ notes: 'gift wrap' });
    expect(order).toMatchObject({
      status: 'pending',
      payment_status: 'unpaid',
      fulfillment_status: 'unfulfilled',
      currency: 'USD',
      subtotal: 20,
      discount_amount: 0,
      shipping_amount: 5,
      tax_amount: 0,
      total: 25,
      amount_paid: 0,
      balance_due: 25,
      payment_method: 'manual',
      notes: 'gift wrap',
      customer: { first_name: 'Grace', last_name: 'Hopper' },
      line_items: [{ product_id: product.id, name: 'Widget', quantity: 2, price: 10, total: 20 }],
      fulfillments: [],
      cancel_reason: null,
    });
    expect(typeof order.order_number).toBe('string');
    expect(Number(order.order_number)).toBeGreaterThanOrEqual(1001);
  });

  it('mark_paid and a price override', async () => {
    const order = await createOrder(api, {
      items: [{ product_id: product.id, quantity: 1, price: '7.50' }],
      mark_paid: true,
      payment_method: 'bank_transfer',
    });
    expect(order).toMatchObject({
      status: 'processing',
      payment_status: 'paid',
      total: 12.5,
      amount_paid: 12.5,
    });
    expect(await lastEvent('order.paid')).toMatchObject({
      orderId: order.id,
      paymentMethod: 'bank_transfer',
    });
  });

  it('order numbers are a per-store sequence from 1001', async () => {
    const fresh = await createStoreWithKey(app);
    const c = client(app, fresh.key);
    const p = await createProduct(c, { inventory: 5 });
    const first = await createOrder(c, { items: [{ product_id: p.id, quantity: 1 }] });
    const second = await createOrder(c, { items: [{ product_id: p.id, quantity: 1 }] });
    expect([first.order_number, second.order_number]).toEqual(['1001', '1002']);
  });

  it('400 on an unknown product, 409 on short stock', async () => {
    const bad = await api.post('/api/v1/orders', {
      customer: { email: 'x@example.com' },
      items: [{ product_id: '00000000-0000-7000-8000-000000000000', quantity: 1 }],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details[0].field).toBe('items.0.product_id');
    const p = await createProduct(api, { inventory: 1 });
    const short = await api.post('/api/v1/orders', {
      customer: { email: 'x@example.com' },
      items: [{ product_id: p.id, quantity: 2 }],
    });
    expect(short.statusCode).toBe(409);
    expect(short.json().error.code).toBe('insufficient_stock');
  });
});

describe('GET /api/v1/orders', () => {
  it('lists newest first with the seed fields and pagination; filters', async () => {
    const fresh = await createStoreWithKey(app);
    const c = client(app, fresh.key);
    const p = await createProduct(c, { inventory: 100, price: '1.00' });
    for (let i = 0; i < 5; i++)
      await createOrder(c, {
        customer: { email: `list${i}@example.com` },
        items: [{ product_id: p.id, quantity: i + 1 }],
        mark_paid: i % 2 === 0,
      });
    const page1 = (await c.get('/api/v1/orders?limit=2')).json();
    expect(page1.meta.pagination).toEqual({
      page: 1,
      limit: 2,
      total: 5,
      total_pages: 3,
      has_next: true,
      has_prev: false,
      next_cursor: expect.any(String),
    });
    expect(page1.data.map((o: { order_number: string }) => o.order_number)).toEqual(['1005', '1004']);
    const item = page1.data[0];
    expect(item).toMatchObject({ status: 'processing', total: 5, item_count: 5 });
    expect(typeof item.id).toBe('string');
    expect(item.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const page3 = (await c.get('/api/v1/orders?limit=2&page=3')).json();
    expect(page3.data.map((o: { order_number: string }) => o.order_number)).toEqual(['1001']);
    expect((await c.get('/api/v1/orders?page=9')).json().data).toEqual([]);

    const paid = (await c.get('/api/v1/orders?payment_status=paid')).json();
    expect(paid.meta.pagination.total).toBe(3);
    const pending = (await c.get('/api/v1/orders?status=pending&limit=1&page=2')).json();
    expect(pending.meta.pagination.total).toBe(2);
    expect(pending.data[0].order_number).toBe('1002');
    expect((await c.get('/api/v1/orders?q=1003')).json().data[0].order_number).toBe('1003');
    expect((await c.get('/api/v1/orders?q=LIST4@example.com')).json().data[0].order_number).toBe('1005');
    const future = (await c.get('/api/v1/orders?created_from=2999-01-01T00:00:00.000Z')).json();
    expect(future.meta.pagination.total).toBe(0);
  });

  it('rejects bad filters with 400', async () => {
    for (const q of ['status=shipped', 'page=0', 'limit=101', 'created_from=yesterday']) {
      const res = await api.get(`/api/v1/orders?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
  });

  it('another store sees neither the list nor the order', async () => {
    const order = await newOrder();
    expect((await other.get(`/api/v1/orders/${order.id}`)).statusCode).toBe(404);
    expect((await other.get('/api/v1/orders')).json().data).toEqual([]);
    for (const path of ['fulfill', 'cancel', 'mark-paid']) {
      expect((await other.post(`/api/v1/orders/${order.id}/${path}`, {})).statusCode).toBe(404);
    }
    expect((await other.patch(`/api/v1/orders/${order.id}`, { notes: 'x' })).statusCode).toBe(404);
    expect((await api.get('/api/v1/orders/not-a-uuid')).statusCode).toBe(404);
  });
});

describe('scopes', () => {
  it('orders:read reads, orders:write writes; neither is 403 where missing', async () => {
    const order = await newOrder();
    const readOnly = client(
      app,
      (await app.services.stores.createApiKey(storeId, { scopes: ['orders:read'] })).key,
    );
    const writeOnly = client(
      app,
      (await app.services.stores.createApiKey(storeId, { scopes: ['orders:write'] })).key,
    );
    expect((await readOnly.get(`/api/v1/orders/${order.id}`)).statusCode).toBe(200);
    expect((await readOnly.post(`/api/v1/orders/${order.id}/cancel`, {})).statusCode).toBe(403);
    expect((await readOnly.patch(`/api/v1/orders/${order.id}`, { notes: 'n' })).statusCode).toBe(403);
    expect((await readOnly.post(`/api/v1/orders/${order.id}/edit-items`, { remove: [] })).statusCode).toBe(
      403,
    );
    expect((await writeOnly.get('/api/v1/orders')).statusCode).toBe(403);
    expect((await writeOnly.patch(`/api/v1/orders/${order.id}`, { notes: 'n' })).statusCode).toBe(200);
    expect((await client(app).get('/api/v1/orders')).statusCode).toBe(401);
  });
});

describe('actions without a body', () => {
  it('fulfil, mark-paid and cancel take no body at all (curl -X POST, a generated client), as they take {}', async () => {
    const inject = (url: string) => api.post(url, undefined);
    const paid = await newOrder();
    const markPaid = await inject(`/api/v1/orders/${paid.id}/mark-paid`);
    expect(markPaid.statusCode, markPaid.body).toBe(200);
    expect(markPaid.json().data.payment_status).toBe('paid');
    const fulfil = await inject(`/api/v1/orders/${paid.id}/fulfill`);
    expect(fulfil.statusCode, fulfil.body).toBe(200);
    expect(fulfil.json().data.fulfillment_status).toBe('fulfilled');
    const cancelled = await newOrder();
    const cancel = await inject(`/api/v1/orders/${cancelled.id}/cancel`);
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect(cancel.json().data.status).toBe('cancelled');
    // A body that is there is still checked.
    const bad = await api.post(`/api/v1/orders/${paid.id}/fulfill`, '[]', {
      'content-type': 'application/json',
    });
    expect(bad.statusCode).toBe(400);
  });

  it('the document says so: those request bodies are not required', async () => {
    const doc = (await app.server.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of ['fulfill', 'cancel', 'mark-paid']) {
      expect(doc.paths[`/api/v1/orders/{id}/${path}`].post.requestBody.required, path).toBe(false);
    }
    expect(doc.paths['/api/v1/orders'].post.requestBody.required).toBe(true);
  });
});

describe('life cycle', () => {
  it('mark-paid collects the balance: partial then full; order.paid once, when paid', async () => {
    const order = await newOrder();
    const partial = await api.post(`/api/v1/orders/${order.id}/mark-paid`, { amount: '10.00' });
    expect(partial.statusCode).toBe(200);
    expect(partial.json().data).toMatchObject({
      status: 'pending',
      payment_status: 'partially_paid',
      amount_paid: 10,
      balance_due: 15,
    });
    const full = await api.post(`/api/v1/orders/${order.id}/mark-paid`, {});
    expect(full.json().data).toMatchObject({ status: 'processing', payment_status: 'paid', balance_due: 0 });
    expect(full.json().data.paid_at).not.toBeNull();
    const paidEvents = (await eventsOf(app.database.db, storeId)).filter(
      (e) => e.name === 'order.paid' && (e.data as { orderId: string }).orderId === order.id,
    );
    expect(paidEvents).toHaveLength(1);
    expect((await api.post(`/api/v1/orders/${order.id}/mark-paid`, {})).statusCode).toBe(409);
    const over = await newOrder();
    expect((await api.post(`/api/v1/orders/${over.id}/mark-paid`, { amount: 26 })).statusCode).toBe(400);
  });

  it('fulfil a paid order with tracking; then it can be neither cancelled nor edited', async () => {
    const order = await newOrder({ mark_paid: true });
    const res = await api.post(`/api/v1/orders/${order.id}/fulfill`, {
      carrier: 'UPS',
      tracking_number: '1Z999',
      tracking_url: 'https://ups.example/track/1Z999',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      status: 'completed',
      fulfillment_status: 'fulfilled',
      fulfillments: [
        { carrier: 'UPS', tracking_number: '1Z999', tracking_url: 'https://ups.example/track/1Z999' },
      ],
    });
    expect((await api.post(`/api/v1/orders/${order.id}/fulfill`, {})).statusCode).toBe(409);
    expect((await api.post(`/api/v1/orders/${order.id}/cancel`, {})).statusCode).toBe(409);
    const edit = await api.post(`/api/v1/orders/${order.id}/edit-items`, {
      update_quantity: [{ item_id: order.line_items[0].id, new_quantity: 1 }],
    });
    expect(edit.statusCode).toBe(409);
    expect(edit.json().error.code).toBe('conflict');
    expect(await lastEvent('order.updated')).toMatchObject({
      orderId: order.id,
      source: 'api',
      changes: {
        status: { before: 'processing', after: 'completed' },
        fulfillmentStatus: { before: 'unfulfilled', after: 'fulfilled' },
      },
    });
  });

  it('fulfilling an unpaid or cancelled order is 409', async () => {
    const unpaid = await newOrder();
    expect((await api.post(`/api/v1/orders/${unpaid.id}/fulfill`, {})).statusCode).toBe(409);
    await api.post(`/api/v1/orders/${unpaid.id}/cancel`, {});
    expect((await api.post(`/api/v1/orders/${unpaid.id}/fulfill`, {})).statusCode).toBe(409);
  });

  it('cancel restocks by default, records the reason and order.cancelled', async () => {
    const before = await stockOf(product.id);
    const order = await newOrder();
    expect(await stockOf(product.id)).toBe(before - 2);
    const res = await api.post(`/api/v1/orders/${order.id}/cancel`, { reason: 'customer changed mind' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'cancelled', cancel_reason: 'customer changed mind' });
    expect(res.json().data.cancelled_at).not.toBeNull();
    expect(await stockOf(product.id)).toBe(before);
    expect(await lastEvent('order.cancelled')).toEqual({
      orderId: order.id,
      orderNumber: order.order_number,
      customerEmail: order.customer.email,
      customerName: 'Grace Hopper',
      cancelReason: 'customer changed mind',
      timestamp: expect.any(String),
    });
    expect((await api.post(`/api/v1/orders/${order.id}/cancel`, {})).statusCode).toBe(409);
    expect((await api.post(`/api/v1/orders/${order.id}/mark-paid`, {})).statusCode).toBe(409);
  });

  it('cancel with restock false keeps the stock out; a paid order becomes refund_due', async () => {
    const order = await newOrder({ mark_paid: true });
    const before = await stockOf(product.id);
    const res = await api.post(`/api/v1/orders/${order.id}/cancel`, { restock: false });
    expect(res.json().data).toMatchObject({ status: 'cancelled', payment_status: 'refund_due' });
    expect(await stockOf(product.id)).toBe(before);
  });

  it('PATCH status follows the transition table', async () => {
    const order = await newOrder();
    const patch = (status: string) => api.patch(`/api/v1/orders/${order.id}`, { status });
    expect((await patch('completed')).statusCode).toBe(409); // pending → completed
    const held = await patch('on_hold');
    expect(held.statusCode).toBe(200);
    expect(held.json().data.status).toBe('on_hold');
    expect((await patch('processing')).statusCode).toBe(409); // on_hold returns only to pending
    expect((await patch('pending')).json().data.status).toBe('pending');
    const paid = await patch('processing');
    expect(paid.json().data).toMatchObject({ status: 'processing', payment_status: 'paid' });
    expect((await patch('pending')).statusCode).toBe(409);
    expect((await patch('completed')).json().data.fulfillment_status).toBe('fulfilled');
    expect((await patch('cancelled')).statusCode).toBe(409);
    expect((await patch('shipped')).statusCode).toBe(400);
  });

  it('PATCH notes and shipping address record order.updated with before/after and source api', async () => {
    const order = await newOrder({ notes: 'old' });
    const address = { line1: '2 Side St', city: 'Shelbyville', postal_code: '54321', country: 'US' };
    const res = await api.patch(`/api/v1/orders/${order.id}`, { notes: 'new', shipping_address: address });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ notes: 'new', shipping_address: address });
    expect(await lastEvent('order.updated')).toMatchObject({
      orderId: order.id,
      orderNumber: order.order_number,
      source: 'api',
      changes: { notes: { before: 'old', after: 'new' }, shippingAddress: { before: null, after: address } },
    });
    expect((await api.patch(`/api/v1/orders/${order.id}`, {})).statusCode).toBe(400);
    expect((await api.patch(`/api/v1/orders/${order.id}`, { total: 1 })).statusCode).toBe(400);
  });
});
