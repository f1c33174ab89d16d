import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  type ProductData,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder, setPricing } from '../helpers/order-factories.js';

/**
 * Refunds recorded by the store itself (contract §9): orders paid `manual`, `test_card` or any
 * method without a provider gateway. Provider refunds (the gateway path) and concurrency are in
 * refunds-gateway.test.ts; events, push and analytics in refunds-events.test.ts.
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

  it('the same key for another order is 409, and refunds nothing there', async () => {
    const [first, second] = [await paidOrder(), await paidOrder()];
    const headers = { 'idempotency-key': `shared-${newId()}` };
    expect((await refund(first.id, { amount: 5 }, headers)).statusCode).toBe(201);
    const other = await refund(second.id, { amount: 5 }, headers);
    expect(other.statusCode).toBe(409);
    expect(await getOrder(second.id)).toMatchObject({ amount_refunded: 0 });
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
