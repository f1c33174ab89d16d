import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { mailsOf } from '../helpers/notification-log.js';
import { createOrder } from '../helpers/order-factories.js';

/** Contract §13: GET /api/v1/notifications, the store's e-mails: filters, pages, scopes, tenancy. */
let app: TestApp;
let api: Client;
let storeId: string;
/** Orders of store A, oldest first: each queued new_order and order_confirmation. */
const orders: { id: string; email: string }[] = [];

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
  storeId = store.store.id;
  expect((await api.patch('/api/v1/store', { contact_email: 'desk@a.example' })).statusCode).toBe(200);
  const p = await createProduct(api, { price: '4.00', inventory: 100 });
  for (let i = 0; i < 3; i++) {
    const order = await createOrder(api, { items: [{ product_id: p.id, quantity: 1 }], send_receipt: true });
    orders.push({ id: order.id, email: order.customer.email });
  }
  // One sent and one failed, as the worker leaves them.
  const [first, second] = await mailsOf(api, { kind: 'order_confirmation' });
  await app.database.db
    .updateTable('notifications')
    .set({ status: 'sent', attempts: 1, subject: 'Order #1003', sent_at: new Date() })
    .where('id', '=', first?.id ?? '')
    .execute();
  await app.database.db
    .updateTable('notifications')
    .set({ status: 'failed', attempts: 1, last_error: '550 no such user' })
    .where('id', '=', second?.id ?? '')
    .execute();
});
afterAll(() => app.close());

const list = (query = '') => api.get(`/api/v1/notifications${query}`);

describe('GET /api/v1/notifications', () => {
  it('lists every e-mail newest first, paginated as every list', async () => {
    const res = await list('?limit=4');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.meta.pagination).toEqual({
      page: 1,
      limit: 4,
      total: 6,
      total_pages: 2,
      has_next: true,
      has_prev: false,
    });
    const second = (await list('?limit=4&page=2')).json();
    expect(second.meta.pagination).toMatchObject({ page: 2, has_next: false, has_prev: true });
    const all = [...body.data, ...second.data];
    expect(all).toHaveLength(6);
    expect(new Set(all.map((m: { id: string }) => m.id)).size).toBe(6);
    const created = all.map((m: { created_at: string }) => m.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    // Newest first: the last order's two e-mails lead.
    expect(all.slice(0, 2).map((m: { order_id: string }) => m.order_id)).toEqual([
      orders[2]?.id,
      orders[2]?.id,
    ]);
    expect(all.slice(4).map((m: { order_id: string }) => m.order_id)).toEqual([orders[0]?.id, orders[0]?.id]);
  });

  it('filters by kind, status and order, and by all three together', async () => {
    expect((await mailsOf(api, { kind: 'new_order' })).map((m) => m.to)).toEqual([
      'desk@a.example',
      'desk@a.example',
      'desk@a.example',
    ]);
    const sent = await mailsOf(api, { status: 'sent' });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ status: 'sent', attempts: 1, subject: 'Order #1003' });
    expect(sent[0]?.sent_at).toMatch(/Z$/);
    const failed = await mailsOf(api, { status: 'failed' });
    expect(failed.map((m) => m.last_error)).toEqual(['550 no such user']);
    expect(await mailsOf(api, { status: 'pending' })).toHaveLength(4);
    // The oldest order: its confirmation is still pending (the newer two were sent and failed).
    const order = orders[0];
    const ofOrder = await mailsOf(api, { order_id: order?.id ?? '' });
    expect(ofOrder.map((m) => m.kind).sort()).toEqual(['new_order', 'order_confirmation']);
    const one = await mailsOf(api, {
      order_id: order?.id ?? '',
      kind: 'order_confirmation',
      status: 'pending',
    });
    expect(one.map((m) => m.to)).toEqual([order?.email]);
    expect(await mailsOf(api, { kind: 'low_stock' })).toEqual([]);
  });

  it('refuses a bad filter or page with 400 naming it', async () => {
    for (const [query, field] of [
      ['?order_id=nope', 'order_id'],
      ['?kind=sms', 'kind'],
      ['?status=bounced', 'status'],
      ['?page=0', 'page'],
      ['?limit=101', 'limit'],
    ] as const) {
      const res = await list(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(JSON.stringify(res.json().error.details)).toContain(field);
    }
  });

  it('needs settings:read (403 without it, 401 without a key)', async () => {
    const orderKey = await app.services.stores.createApiKey(storeId, { scopes: ['orders:read'] });
    const denied = await client(app, orderKey.key).get('/api/v1/notifications');
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('forbidden');
    const settingsKey = await app.services.stores.createApiKey(storeId, { scopes: ['settings:read'] });
    expect((await client(app, settingsKey.key).get('/api/v1/notifications')).statusCode).toBe(200);
    expect((await client(app).get('/api/v1/notifications')).statusCode).toBe(401);
  });

  it("another store sees none of them, not even by this store's order id", async () => {
    const other = await createStoreWithKey(app);
    const otherApi = client(app, other.key);
    expect(await mailsOf(otherApi)).toEqual([]);
    expect(await mailsOf(otherApi, { order_id: orders[0]?.id ?? '' })).toEqual([]);
    expect((await otherApi.get(`/api/v1/orders/${orders[0]?.id}`)).statusCode).toBe(404);
  });
});
