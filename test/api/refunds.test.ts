import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
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
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Refunds recorded by the store itself (contract §9): orders paid `manual`, `test_card` or any
 * method without a provider gateway. Provider refunds (the gateway path) and concurrency are in
 * refunds-gateway.test.ts.
 */

let app: TestApp;
let api: Client;
let other: Client;
let storeId: string;
let widget: ProductData;
let gadget: ProductData;

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, allowPrivateUrls: true } });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  api = client(app, store.key);
  other = client(app, (await createStoreWithKey(app)).key);
  await setPricing(app, storeId, { shipping_flat_rate: 500, tax_rate_bps: 0 });
  widget = await createProduct(api, { price: '10.00', inventory: 100, name: 'Widget' });
  gadget = await createProduct(api, {
    name: 'Gadget',
    price: '20.00',
    options: [{ name: 'Size', values: ['S', 'M'] }],
    variants: [
      { title: 'S', price: '20.00', inventory: 100, options: { Size: 'S' } },
      { title: 'M', price: '20.00', inventory: 100, options: { Size: 'M' } },
    ],
  });
});
afterAll(() => app.close());

/** 2 widgets + 1 gadget M + 5.00 shipping = 45.00, paid in full. */
const paidOrder = (extra: Record<string, unknown> = {}) =>
  createOrder(api, {
    items: [
      { product_id: widget.id, quantity: 2 },
      { product_id: gadget.id, variant_id: gadget.variants[1]?.id, quantity: 1 },
    ],
    mark_paid: true,
    ...extra,
  });
const refund = (orderId: string, body: unknown, headers?: Record<string, string>) =>
  api.post(`/api/v1/orders/${orderId}/refunds`, body, headers);
const getOrder = async (id: string) => (await api.get(`/api/v1/orders/${id}`)).json().data;
const inventoryOf = async (id: string, type = 'product') =>
  (await api.get(`/api/v1/inventory/${id}?type=${type}`)).json().data.inventory;
const eventsNamed = async (name: string) =>
  (await eventsOf(app.database.db, storeId)).filter((e) => e.name === name);

describe('POST /api/v1/orders/{id}/refunds', () => {
  it('refunds part of a paid order: 201 with the refund, the order partially_refunded', async () => {
    const order = await paidOrder();
    const res = await refund(order.id, { amount: '12.50', reason: 'scratched' });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toEqual({
      id: expect.any(String),
      order_id: order.id,
      amount: 12.5,
      currency: 'USD',
      reason: 'scratched',
      status: 'succeeded',
      provider: 'manual',
      provider_refund_id: null,
      failure_reason: null,
      restocked: [],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const after = await getOrder(order.id);
    expect(after).toMatchObject({
      payment_status: 'partially_refunded',
      amount_paid: 45,
      amount_refunded: 12.5,
      balance_due: 0,
      status: 'processing',
    });
    const list = await api.get(`/api/v1/orders/${order.id}/refunds`);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({
      data: [data],
      meta: {
        pagination: { page: 1, limit: 20, total: 1, total_pages: 1, has_next: false, has_prev: false },
      },
    });
  });

  it('refunds the rest: refunded; then nothing is left (400)', async () => {
    const order = await paidOrder();
    expect((await refund(order.id, { amount: 20 })).statusCode).toBe(201);
    const rest = await refund(order.id, { amount: 25 });
    expect(rest.statusCode, rest.body).toBe(201);
    expect(await getOrder(order.id)).toMatchObject({ payment_status: 'refunded', amount_refunded: 45 });
    const more = await refund(order.id, { amount: '0.01' });
    expect(more.statusCode).toBe(400);
    expect(more.json().error).toMatchObject({
      code: 'invalid_request',
      details: [{ field: 'amount', message: 'out of range: at most 0.00' }],
    });
    const list = (await api.get(`/api/v1/orders/${order.id}/refunds`)).json();
    expect(list.data.map((r: { amount: number }) => r.amount)).toEqual([25, 20]);
  });

  it('refuses more than was paid minus refunded, zero, negative and malformed amounts (400)', async () => {
    const order = await paidOrder();
    for (const amount of ['45.01', 46, 0, '0.00', -1, '1.001', 'ten', null]) {
      const res = await refund(order.id, { amount });
      expect(res.statusCode, `${amount}: ${res.body}`).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    expect((await refund(order.id, {})).statusCode).toBe(400);
    expect((await refund(order.id, { amount: 1, extra: true })).statusCode).toBe(400);
    expect((await refund(order.id, { amount: 1, reason: 'x'.repeat(501) })).statusCode).toBe(400);
    expect(await getOrder(order.id)).toMatchObject({ payment_status: 'paid', amount_refunded: 0 });
    expect((await refund(order.id, { amount: 45 })).statusCode).toBe(201);
  });

  it('is bounded by what was paid on a partially paid order', async () => {
    const order = await createOrder(api, { items: [{ product_id: widget.id, quantity: 1 }] });
    const paid = await api.post(`/api/v1/orders/${order.id}/mark-paid`, { amount: '6.00' });
    expect(paid.json().data.payment_status).toBe('partially_paid');
    expect((await refund(order.id, { amount: '6.01' })).statusCode).toBe(400);
    expect((await refund(order.id, { amount: '2.00' })).statusCode).toBe(201);
    expect(await getOrder(order.id)).toMatchObject({
      payment_status: 'partially_refunded',
      amount_refunded: 2,
    });
    // Collecting the balance later keeps the refund visible in the payment status.
    const rest = await api.post(`/api/v1/orders/${order.id}/mark-paid`, {});
    expect(rest.json().data).toMatchObject({ status: 'processing', payment_status: 'partially_refunded' });
  });

  it('an unpaid order is 409 conflict; unknown, malformed and other stores’ orders are 404', async () => {
    const unpaid = await createOrder(api, { items: [{ product_id: widget.id, quantity: 1 }] });
    const res = await refund(unpaid.id, { amount: 1 });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('conflict');
    const paid = await paidOrder();
    for (const [who, id] of [
      [api, newId()],
      [api, 'not-a-uuid'],
      [other, paid.id],
    ] as const) {
      const post = await who.post(`/api/v1/orders/${id}/refunds`, { amount: 1 });
      expect(post.statusCode).toBe(404);
      expect(post.json().error.code).toBe('not_found');
      expect((await who.get(`/api/v1/orders/${id}/refunds`)).statusCode).toBe(404);
    }
    expect(await getOrder(paid.id)).toMatchObject({ amount_refunded: 0 });
  });

  it('records test_card orders with provider test_card, others as manual', async () => {
    const card = await paidOrder({ payment_method: 'test_card' });
    expect((await refund(card.id, { amount: 1 })).json().data.provider).toBe('test_card');
    const bank = await paidOrder({ payment_method: 'bank_transfer' });
    expect((await refund(bank.id, { amount: 1 })).json().data.provider).toBe('manual');
  });

  it('refunds a cancelled paid order (refund_due → refunded), but never restocks it again', async () => {
    const order = await paidOrder();
    const cancelled = await api.post(`/api/v1/orders/${order.id}/cancel`, {});
    expect(cancelled.json().data.payment_status).toBe('refund_due');
    const line = order.line_items[0];
    const restock = await refund(order.id, { amount: 45, restock: [{ line_item_id: line.id, quantity: 1 }] });
    expect(restock.statusCode).toBe(409);
    expect((await refund(order.id, { amount: 45 })).statusCode).toBe(201);
    expect(await getOrder(order.id)).toMatchObject({ status: 'cancelled', payment_status: 'refunded' });
  });
});

describe('restock', () => {
  it('puts units back with history reason refund, bounded by what was bought minus restocked', async () => {
    const order = await paidOrder();
    const [widgetLine, gadgetLine] = order.line_items;
    const variantId = gadget.variants[1]?.id as string;
    const before = { widget: await inventoryOf(widget.id), variant: await inventoryOf(variantId, 'variant') };
    const res = await refund(order.id, {
      amount: 10,
      restock: [
        { line_item_id: widgetLine.id, quantity: 1 },
        { line_item_id: gadgetLine.id, quantity: 1 },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.restocked).toEqual([
      { line_item_id: widgetLine.id, quantity: 1 },
      { line_item_id: gadgetLine.id, quantity: 1 },
    ]);
    expect(await inventoryOf(widget.id)).toBe(before.widget + 1);
    expect(await inventoryOf(variantId, 'variant')).toBe(before.variant + 1);
    const history = (await api.get(`/api/v1/inventory/${widget.id}/adjustments`)).json().data;
    expect(history[0]).toMatchObject({ adjustment: 1, source: 'refund', reason: 'refund' });

    // The gadget line bought 1 and it is back: no more. The widget line has 1 left.
    for (const restock of [
      [{ line_item_id: gadgetLine.id, quantity: 1 }],
      [{ line_item_id: widgetLine.id, quantity: 2 }],
      [
        { line_item_id: widgetLine.id, quantity: 1 },
        { line_item_id: widgetLine.id, quantity: 1 },
      ],
      [{ line_item_id: newId(), quantity: 1 }],
      [{ line_item_id: widgetLine.id, quantity: 0 }],
    ]) {
      const bad = await refund(order.id, { amount: 1, restock });
      expect(bad.statusCode, JSON.stringify(restock)).toBe(400);
      expect(bad.json().error.code).toBe('invalid_request');
    }
    expect(await inventoryOf(widget.id)).toBe(before.widget + 1);
    expect(
      (await refund(order.id, { amount: 1, restock: [{ line_item_id: widgetLine.id, quantity: 1 }] }))
        .statusCode,
    ).toBe(201);
    expect(await inventoryOf(widget.id)).toBe(before.widget + 2);

    // Cancelling afterwards returns only what the refunds did not.
    expect((await api.post(`/api/v1/orders/${order.id}/cancel`, {})).statusCode).toBe(200);
    expect(await inventoryOf(widget.id)).toBe(before.widget + 2);
    expect(await inventoryOf(variantId, 'variant')).toBe(before.variant + 1);
  });

  it('a refund refused for its restock changes nothing (one transaction)', async () => {
    const order = await paidOrder();
    const before = await inventoryOf(widget.id);
    const bad = await refund(order.id, {
      amount: 5,
      restock: [
        { line_item_id: order.line_items[0].id, quantity: 1 },
        { line_item_id: order.line_items[1].id, quantity: 2 },
      ],
    });
    expect(bad.statusCode).toBe(400);
    expect(await inventoryOf(widget.id)).toBe(before);
    expect(await getOrder(order.id)).toMatchObject({ amount_refunded: 0, payment_status: 'paid' });
    expect((await api.get(`/api/v1/orders/${order.id}/refunds`)).json().data).toEqual([]);
  });
});

describe('events, webhooks and push', () => {
  let receiver: WebhookReceiver;
  let worker: ReturnType<typeof startTestWorker>;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    worker = startTestWorker(app);
  });
  afterAll(async () => {
    await worker.stop();
    await receiver.close();
  });

  it('delivers order.refunded with the order and the refund, and order.updated with the changes', async () => {
    const hook = await api.post('/api/v1/webhooks', {
      url: `${receiver.url}/refunds`,
      events: ['order.refunded'],
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const order = await paidOrder();
    const res = await refund(order.id, {
      amount: '5.00',
      reason: 'late',
      restock: [{ line_item_id: order.line_items[0].id, quantity: 1 }],
    });
    const made = res.json().data;
    // Earlier refunds of this file were not dispatched yet either: find this one's delivery.
    const ours = () => receiver.received.find((r) => r.path === '/refunds' && r.body.includes(made.id));
    await receiver.waitFor(() => ours() !== undefined);
    const delivered = ours();
    const body = JSON.parse(delivered?.body ?? '{}');
    expect(delivered?.headers['x-webhook-event']).toBe('order.refunded');
    expect(body).toMatchObject({
      event: 'order.refunded',
      data: {
        orderId: order.id,
        orderNumber: order.order_number,
        customerEmail: order.customer.email,
        order: {
          id: order.id,
          paymentStatus: 'partially_refunded',
          amountPaid: 45,
          amountRefunded: 5,
          lineItems: expect.any(Array),
        },
        refund: {
          id: made.id,
          orderId: order.id,
          amount: 5,
          reason: 'late',
          status: 'succeeded',
          provider: 'manual',
          providerRefundId: null,
          restocked: [{ lineItemId: order.line_items[0].id, quantity: 1 }],
        },
      },
    });
    const updated = (await eventsNamed('order.updated')).at(-1)?.data;
    expect(updated).toMatchObject({
      orderId: order.id,
      source: 'api',
      changes: {
        paymentStatus: { before: 'paid', after: 'partially_refunded' },
        amountRefunded: { before: 0, after: 5 },
      },
    });
  });

  it('lists order.refunded among the events a webhook can subscribe to and test', async () => {
    const hook = (await api.post('/api/v1/webhooks', { url: `${receiver.url}/test`, events: ['*'] })).json()
      .data;
    const sent = await api.post(`/api/v1/webhooks/${hook.id}/test`, { event: 'order.refunded' });
    expect(sent.statusCode, sent.body).toBe(200);
    const body = JSON.parse(sent.json().data.request_body);
    expect(body).toMatchObject({
      event: 'order.refunded',
      test: true,
      data: { refund: { status: 'succeeded' } },
    });
  });

  it('queues a push to the buyer when order updates are on, none when off', async () => {
    const order = await paidOrder();
    const customerId = order.customer.id as string;
    const db = app.database.db;
    await db
      .insertInto('customer_devices')
      .values({
        id: newId(),
        store_id: storeId,
        customer_id: customerId,
        token: `t-${newId()}`,
        platform: 'ios',
      })
      .execute();
    const pushes = () =>
      db
        .selectFrom('push_notifications')
        .selectAll()
        .where('customer_id', '=', customerId)
        .orderBy('id')
        .execute();
    const before = (await pushes()).length;
    expect((await refund(order.id, { amount: '5.00' })).statusCode).toBe(201);
    const queued = (await pushes()).slice(before);
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({
      title: `Order #${order.order_number} was partly refunded`,
      body: 'A refund of 5.00 USD is on its way to you.',
    });
    await db
      .insertInto('notification_preferences')
      .values({ store_id: storeId, customer_id: customerId, order_updates: false, promotions: false })
      .execute();
    expect((await refund(order.id, { amount: '40.00' })).statusCode).toBe(201);
    expect((await pushes()).length).toBe(before + 1);
  });

  it('lowers the buyer’s total spent by what was refunded', async () => {
    const order = await paidOrder();
    const spent = async () =>
      (await api.get(`/api/v1/customers/${order.customer.id}`)).json().data.total_spent;
    expect(await spent()).toBe(45);
    await refund(order.id, { amount: 15 });
    expect(await spent()).toBe(30);
    await api.post(`/api/v1/orders/${order.id}/cancel`, {});
    expect(await spent()).toBe(0);
  });
});

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body; another body is 409', async () => {
    const order = await paidOrder();
    const headers = { 'idempotency-key': `refund-${newId()}` };
    const first = await refund(order.id, { amount: 10 }, headers);
    expect(first.statusCode).toBe(201);
    const again = await refund(order.id, { amount: 10 }, headers);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await getOrder(order.id)).toMatchObject({ amount_refunded: 10 });
    const changed = await refund(order.id, { amount: 11 }, headers);
    expect(changed.statusCode).toBe(409);
    expect(changed.json().error.code).toBe('conflict');
    expect((await api.get(`/api/v1/orders/${order.id}/refunds`)).json().data).toHaveLength(1);
  });

  it('re-renders the refund from its recorded id when the stored answer was lost', async () => {
    const order = await paidOrder();
    const key = `lost-${newId()}`;
    const first = await refund(order.id, { amount: 3 }, { 'idempotency-key': key });
    await app.database.db
      .updateTable('idempotency_keys')
      .set({ status_code: null, response_body: null })
      .where('store_id', '=', storeId)
      .where('key', '=', key)
      .execute();
    const again = await refund(order.id, { amount: 3 }, { 'idempotency-key': key });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(await getOrder(order.id)).toMatchObject({ amount_refunded: 3 });
  });
});

describe('scopes', () => {
  it('orders:write refunds, orders:read lists; each is 403 without its scope, 401 without a key', async () => {
    const order = await paidOrder();
    const reader = client(
      app,
      (await app.services.stores.createApiKey(storeId, { scopes: ['orders:read'] })).key,
    );
    const writer = client(
      app,
      (await app.services.stores.createApiKey(storeId, { scopes: ['orders:write'] })).key,
    );
    const denied = await reader.post(`/api/v1/orders/${order.id}/refunds`, { amount: 1 });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('forbidden');
    expect((await writer.post(`/api/v1/orders/${order.id}/refunds`, { amount: 1 })).statusCode).toBe(201);
    expect((await reader.get(`/api/v1/orders/${order.id}/refunds`)).statusCode).toBe(200);
    expect((await writer.get(`/api/v1/orders/${order.id}/refunds`)).statusCode).toBe(403);
    const anonymous = client(app);
    expect((await anonymous.post(`/api/v1/orders/${order.id}/refunds`, { amount: 1 })).statusCode).toBe(401);
    expect((await anonymous.get(`/api/v1/orders/${order.id}/refunds`)).statusCode).toBe(401);
  });

  it('pages the list: page and limit, 400 out of range', async () => {
    const order = await paidOrder();
    for (const amount of [1, 2, 3]) await refund(order.id, { amount });
    const page = (await api.get(`/api/v1/orders/${order.id}/refunds?limit=2&page=2`)).json();
    expect(page.data.map((r: { amount: number }) => r.amount)).toEqual([1]);
    expect(page.meta.pagination).toMatchObject({
      page: 2,
      limit: 2,
      total: 3,
      has_prev: true,
      has_next: false,
    });
    expect((await api.get(`/api/v1/orders/${order.id}/refunds?limit=101`)).statusCode).toBe(400);
  });
});

describe('analytics: refunds and net revenue', () => {
  it('counts succeeded refunds by the day they were made; net_revenue = revenue − refunds', async () => {
    const shop = await createStoreWithKey(app);
    const shopApi = client(app, shop.key);
    await setPricing(app, shop.store.id, { shipping_flat_rate: 0, tax_rate_bps: 0 });
    const lamp = await createProduct(shopApi, { price: '30.00', inventory: 100 });
    const buy = () =>
      createOrder(shopApi, { items: [{ product_id: lamp.id, quantity: 1 }], mark_paid: true });
    const report = async () => (await shopApi.get('/api/v1/analytics')).json().data;

    const [a, b, c] = [await buy(), await buy(), await buy()];
    await shopApi.post(`/api/v1/orders/${a.id}/refunds`, { amount: '12.50' });
    await shopApi.post(`/api/v1/orders/${b.id}/refunds`, { amount: 30 });
    // A refund of an order cancelled later: the cancelled order is out of revenue, and so is its refund.
    await shopApi.post(`/api/v1/orders/${c.id}/refunds`, { amount: 5 });
    await shopApi.post(`/api/v1/orders/${c.id}/cancel`, {});
    const now = await report();
    expect(now.totals).toMatchObject({ revenue: 60, refunds: 42.5, net_revenue: 17.5, orders: 2 });
    expect(now.previous_period).toMatchObject({ revenue: 0, refunds: 0, net_revenue: 0 });

    // A refund made 40 days ago counts in the previous period, whatever its order's day.
    const old = (await shopApi.get(`/api/v1/orders/${a.id}/refunds`)).json().data[0];
    await app.database.db
      .updateTable('refunds')
      .set({ created_at: new Date(Date.now() - 40 * 86_400_000) })
      .where('id', '=', old.id)
      .execute();
    const later = await report();
    expect(later.totals).toMatchObject({ revenue: 60, refunds: 30, net_revenue: 30 });
    expect(later.previous_period).toMatchObject({ revenue: 0, refunds: 12.5, net_revenue: -12.5 });
  });
});
