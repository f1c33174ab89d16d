import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder, setPricing } from '../helpers/order-factories.js';

let app: TestApp;
let api: Client;
let storeId: string;
let keyId: string;
let userId: string;
let cookie: string;
const ORIGIN = 'http://localhost:3000';
const EMAIL = `owner.${Date.now()}@example.com`;

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN } });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  const key = await app.services.stores.createApiKey(storeId, { name: 'Warehouse sync', scopes: 'all' });
  keyId = key.id;
  api = client(app, key.key);
  await setPricing(app, storeId, { shipping_flat_rate: 500, tax_rate_bps: 0 });
  const user = await app.services.stores.createAdminUser({
    email: EMAIL,
    password: 'correct horse battery',
    storeSlug: store.store.slug,
  });
  userId = user.id;
  const login = await app.server.inject({
    method: 'POST',
    url: '/api/admin/auth/login',
    payload: { email: EMAIL, password: 'correct horse battery' },
  });
  expect(login.statusCode, login.body).toBe(200);
  cookie = String(login.headers['set-cookie']).split(';')[0] as string;
});
afterAll(() => app.close());

/** A write from the dashboard: the admin session's cookie, from the dashboard's origin. */
const asUser = (method: 'POST' | 'PATCH', url: string, payload: object) =>
  app.server.inject({ method, url, payload, headers: { cookie, origin: ORIGIN } });
const timelineOf = async (id: string) => {
  const res = await api.get(`/api/v1/orders/${id}/timeline`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

describe('GET /api/v1/orders/{id}/timeline', () => {
  it('lists every change oldest first, with who made it, the before/after of an item edit, after events are pruned', async () => {
    const a = await createProduct(api, { name: 'Mug', price: '10.00', inventory: 20 });
    const b = await createProduct(api, { name: 'Poster', price: '4.00', inventory: 20 });
    const order = await createOrder(api, { items: [{ product_id: a.id, quantity: 2 }] });
    const line = order.line_items[0];

    expect((await asUser('POST', `/api/v1/orders/${order.id}/mark-paid`, {})).statusCode).toBe(200);
    const edit = await api.post(`/api/v1/orders/${order.id}/edit-items`, {
      update_quantity: [{ item_id: line.id, new_quantity: 3 }],
      add: [{ product_id: b.id, name: 'Poster', quantity: 1, price: 4 }],
    });
    expect(edit.statusCode, edit.body).toBe(200);
    expect((await asUser('PATCH', `/api/v1/orders/${order.id}`, { notes: 'gift wrap' })).statusCode).toBe(
      200,
    );
    const fulfil = await api.post(`/api/v1/orders/${order.id}/fulfill`, {
      carrier: 'UPS',
      tracking_number: '1Z999',
    });
    expect(fulfil.statusCode, fulfil.body).toBe(200);
    const refund = await asUser('POST', `/api/v1/orders/${order.id}/refunds`, {
      amount: '5.00',
      reason: 'scratched',
    });
    expect(refund.statusCode, refund.body).toBe(201);
    // Delivered events are pruned (webhooks' retention): the order's history is not.
    await app.database.db.deleteFrom('events').where('store_id', '=', storeId).execute();

    const { data, has_more } = await timelineOf(order.id);
    expect(has_more).toBe(false);
    const key = { type: 'api_key', id: keyId, name: 'Warehouse sync' };
    const user = { type: 'user', id: userId, name: EMAIL };
    expect(data.map((e: { type: string; actor: unknown }) => [e.type, e.actor])).toEqual([
      ['created', key],
      ['paid', user],
      ['items_edited', key],
      ['notes_changed', user],
      ['fulfilled', key],
      ['refunded', user],
    ]);
    const [created, paid, edited, notes, fulfilled, refunded] = data;
    expect(created).toMatchObject({ summary: 'Order placed: 25.00 USD', data: { total: 25, item_count: 2 } });
    expect(paid).toMatchObject({
      summary: 'Paid 25.00 USD (manual)',
      changes: { status: { before: 'pending', after: 'processing' } },
    });
    expect(edited.changes.line_items).toEqual({
      before: [{ id: line.id, name: 'Mug', quantity: 2, price: 10 }],
      after: [
        { id: line.id, name: 'Mug', quantity: 3, price: 10 },
        { id: expect.any(String), name: 'Poster', quantity: 1, price: 4 },
      ],
    });
    expect(edited.changes.total).toEqual({ before: 25, after: 39 });
    expect(edited.summary).toBe('Items edited: total 25.00 USD → 39.00 USD');
    expect(notes.changes).toEqual({ notes: { before: null, after: 'gift wrap' } });
    expect(fulfilled).toMatchObject({
      summary: 'Fulfilled, tracking UPS 1Z999',
      data: { carrier: 'UPS', tracking_number: '1Z999' },
    });
    expect(refunded).toMatchObject({
      summary: 'Refunded 5.00 USD: scratched',
      data: { amount: 5, reason: 'scratched' },
    });
    for (const entry of data) expect(Number.isNaN(Date.parse(entry.at))).toBe(false);
  });

  it('records a cancellation with its reason and who cancelled', async () => {
    const p = await createProduct(api, { price: '3.00', inventory: 5 });
    const order = await createOrder(api, { items: [{ product_id: p.id, quantity: 1 }] });
    expect(
      (await api.post(`/api/v1/orders/${order.id}/cancel`, { reason: 'customer asked' })).statusCode,
    ).toBe(200);
    const { data } = await timelineOf(order.id);
    expect(data.map((e: { type: string }) => e.type)).toEqual(['created', 'cancelled']);
    expect(data[1]).toMatchObject({
      summary: 'Cancelled: customer asked',
      actor: { type: 'api_key', name: 'Warehouse sync' },
      changes: { status: { before: 'pending', after: 'cancelled' } },
    });
  });

  it('is 404 for another store’s order and for an unknown id', async () => {
    const p = await createProduct(api, { price: '3.00', inventory: 5 });
    const order = await createOrder(api, { items: [{ product_id: p.id, quantity: 1 }] });
    const other = client(app, (await createStoreWithKey(app)).key);
    const res = await other.get(`/api/v1/orders/${order.id}/timeline`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
    expect((await api.get('/api/v1/orders/not-an-id/timeline')).statusCode).toBe(404);
  });

  it('needs orders:read', async () => {
    const p = await createProduct(api, { price: '3.00', inventory: 5 });
    const order = await createOrder(api, { items: [{ product_id: p.id, quantity: 1 }] });
    const narrow = await app.services.stores.createApiKey(storeId, { scopes: ['products:read'] });
    const res = await client(app, narrow.key).get(`/api/v1/orders/${order.id}/timeline`);
    expect(res.statusCode).toBe(403);
  });
});
