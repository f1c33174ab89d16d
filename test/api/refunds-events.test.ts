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
 * What a refund causes beyond the order (contract §9): order.refunded and order.updated through
 * webhooks, the buyer's push and total spent, and analytics' refunds and net revenue. The refund
 * rules themselves are in refunds.test.ts, provider refunds in refunds-gateway.test.ts.
 */

let app: TestApp;
let api: Client;
let storeId: string;
let widget: ProductData;
let gadget: ProductData;

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, allowPrivateUrls: true } });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  api = client(app, store.key);
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
const eventsNamed = async (name: string) =>
  (await eventsOf(app.database.db, storeId)).filter((e) => e.name === name);

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
