import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { cartsOf } from '../helpers/cart-factories.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { mailsOf, mailsOfOrder, turnOff } from '../helpers/notification-log.js';
import { checkoutBody, createOrder } from '../helpers/order-factories.js';

/**
 * Contract §13: each e-mail is queued in the transaction of the change that causes it, once per
 * cause, to the right person of the right store. Read back through GET /api/v1/notifications.
 */
let app: TestApp;
let api: Client;
let shop: Client;
let slug: string;
let storeId: string;
const CONTACT = 'orders@shop.example';

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
  shop = client(app);
  slug = store.store.slug;
  storeId = store.store.id;
  expect((await api.patch('/api/v1/store', { contact_email: CONTACT })).statusCode).toBe(200);
});
afterAll(() => app.close());

const checkout = (body: unknown, headers?: Record<string, string>) =>
  shop.post(`/api/storefront/${slug}/checkout`, body, headers);

async function placed(quantity = 1, extra: Record<string, unknown> = {}) {
  const p = await createProduct(api, { price: '10.00', inventory: 100 });
  const body = checkoutBody([{ productId: p.id, quantity }], extra);
  const res = await checkout(body);
  expect(res.statusCode, res.body).toBe(201);
  return { order: res.json().data as { id: string; orderNumber: string }, email: body.email, product: p };
}

const PAID = { paymentMethod: 'test_card', cardToken: 'tok_visa' };

const refsOf = async (orderId: string, kind: string) =>
  (
    await app.database.db
      .selectFrom('notifications')
      .select(['refs', 'dedupe_key'])
      .where('store_id', '=', storeId)
      .where('order_id', '=', orderId)
      .where('kind', '=', kind as 'refund_issued')
      .orderBy('id')
      .execute()
  ).map((r) => ({ ...r.refs, key: r.dedupe_key }));

describe('orders placed', () => {
  it("checkout: the buyer's order_confirmation and the store's new_order, pending, for that order", async () => {
    const { order, email } = await placed();
    expect(await mailsOfOrder(api, order.id)).toEqual([
      `new_order → ${CONTACT}`,
      `order_confirmation → ${email}`,
    ]);
    const [mail] = await mailsOf(api, { order_id: order.id, kind: 'order_confirmation' });
    expect(mail).toEqual({
      id: expect.any(String),
      kind: 'order_confirmation',
      to: email,
      subject: null,
      status: 'pending',
      attempts: 0,
      last_error: null,
      order_id: order.id,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      sent_at: null,
    });
  });

  it('a checkout retried with the same Idempotency-Key: one order, one confirmation', async () => {
    const p = await createProduct(api, { price: '10.00', inventory: 100 });
    const body = checkoutBody([{ productId: p.id, quantity: 1 }]);
    const key = `retry-${Date.now()}`;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await checkout(body, { 'idempotency-key': key }));
    const ids = new Set(answers.map((r) => r.json().data.id));
    expect(ids.size).toBe(1);
    const [orderId] = [...ids];
    expect(await mailsOfOrder(api, orderId)).toEqual([
      `new_order → ${CONTACT}`,
      `order_confirmation → ${body.email}`,
    ]);
    expect(
      (await mailsOf(api, { kind: 'order_confirmation' })).filter((m) => m.to === body.email),
    ).toHaveLength(1);
  });

  it('a cart completed 20 times at once: one order, one confirmation, one new_order', async () => {
    const carts = cartsOf(shop, slug);
    const p = await createProduct(api, { price: '3.00', inventory: 100 });
    const email = `racer.${Date.now()}@example.com`;
    const created = await carts.create({ items: [{ productId: p.id, quantity: 1 }], email });
    expect(created.statusCode, created.body).toBe(201);
    const cartId = created.json().data.id;
    const answers = await Promise.all(Array.from({ length: 20 }, () => carts.complete(cartId)));
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(1);
    const ids = new Set(answers.map((r) => r.json().data.id));
    expect(ids.size).toBe(1);
    expect(await mailsOfOrder(api, [...ids][0])).toEqual([
      `new_order → ${CONTACT}`,
      `order_confirmation → ${email}`,
    ]);
  }, 60_000);

  it('POST /orders: new_order always; the confirmation only with send_receipt: true', async () => {
    const p = await createProduct(api, { price: '10.00', inventory: 100 });
    const items = [{ product_id: p.id, quantity: 1 }];
    const quiet = await createOrder(api, { items });
    expect(await mailsOfOrder(api, quiet.id)).toEqual([`new_order → ${CONTACT}`]);
    const off = await createOrder(api, { items, send_receipt: false });
    expect(await mailsOfOrder(api, off.id)).toEqual([`new_order → ${CONTACT}`]);
    const receipt = await createOrder(api, { items, send_receipt: true });
    expect(await mailsOfOrder(api, receipt.id)).toEqual([
      `new_order → ${CONTACT}`,
      `order_confirmation → ${receipt.customer.email}`,
    ]);
    const bad = await api.post('/api/v1/orders', {
      customer: { email: 'x@example.com' },
      items,
      send_receipt: 'yes',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('invalid_request');
  });
});

describe('changes of an order', () => {
  it('fulfil: shipping_confirmation to the buyer, naming the fulfilment; once', async () => {
    const { order, email } = await placed(1, PAID);
    const res = await api.post(`/api/v1/orders/${order.id}/fulfill`, {
      carrier: 'UPS',
      tracking_number: '1Z999',
      tracking_url: 'https://ups.example/1Z999',
    });
    expect(res.statusCode, res.body).toBe(200);
    const fulfillmentId = res.json().data.fulfillments[0].id;
    expect((await api.post(`/api/v1/orders/${order.id}/fulfill`, {})).statusCode).toBe(409);
    const shipped = await mailsOf(api, { order_id: order.id, kind: 'shipping_confirmation' });
    expect(shipped.map((m) => m.to)).toEqual([email]);
    expect(await refsOf(order.id, 'shipping_confirmation')).toEqual([
      { fulfillment_id: fulfillmentId, key: `shipping_confirmation:${fulfillmentId}` },
    ]);
  });

  it('fulfil through PATCH status completed sends it too', async () => {
    const { order, email } = await placed(1, PAID);
    const res = await api.patch(`/api/v1/orders/${order.id}`, { status: 'completed' });
    expect(res.statusCode, res.body).toBe(200);
    expect(
      (await mailsOf(api, { order_id: order.id, kind: 'shipping_confirmation' })).map((m) => m.to),
    ).toEqual([email]);
  });

  it('cancel: order_cancelled to the buyer, once', async () => {
    const { order, email } = await placed();
    expect((await api.post(`/api/v1/orders/${order.id}/cancel`, { reason: 'customer' })).statusCode).toBe(
      200,
    );
    expect((await api.post(`/api/v1/orders/${order.id}/cancel`, {})).statusCode).toBe(409);
    expect(await mailsOfOrder(api, order.id)).toEqual([
      `new_order → ${CONTACT}`,
      `order_cancelled → ${email}`,
      `order_confirmation → ${email}`,
    ]);
  });

  it('refund: one refund_issued per refund, naming it', async () => {
    const { order, email } = await placed(2, PAID);
    const first = await api.post(`/api/v1/orders/${order.id}/refunds`, { amount: 5 });
    expect(first.statusCode, first.body).toBe(201);
    const second = await api.post(`/api/v1/orders/${order.id}/refunds`, { amount: 3 });
    expect(second.statusCode, second.body).toBe(201);
    const refunded = await mailsOf(api, { order_id: order.id, kind: 'refund_issued' });
    expect(refunded.map((m) => m.to)).toEqual([email, email]);
    const ids = [first.json().data.id, second.json().data.id];
    expect(await refsOf(order.id, 'refund_issued')).toEqual(
      ids.map((id) => ({ refund_id: id, key: `refund_issued:${id}` })),
    );
    // A refund refused (more than was paid) queues nothing.
    expect((await api.post(`/api/v1/orders/${order.id}/refunds`, { amount: 1000 })).statusCode).toBe(400);
    expect(await mailsOf(api, { order_id: order.id, kind: 'refund_issued' })).toHaveLength(2);
  });
});

describe('low stock', () => {
  const lowStock = async (productId: string) =>
    (
      await app.database.db
        .selectFrom('notifications')
        .select(['to_email', 'refs', 'order_id'])
        .where('store_id', '=', storeId)
        .where('kind', '=', 'low_stock')
        .orderBy('id')
        .execute()
    ).filter((r) => r.refs.product_id === productId);

  it('to the store, once per crossing: not again while it stays low, again after a restock', async () => {
    const p = await createProduct(api, { price: '1.00', inventory: 10, low_stock_threshold: 3 });
    const items = (quantity: number) => [{ product_id: p.id, quantity }];
    await createOrder(api, { items: items(7) });
    const after = await mailsOf(api, { kind: 'low_stock' });
    expect(await lowStock(p.id)).toEqual([
      {
        to_email: CONTACT,
        order_id: null,
        refs: { product_id: p.id, variant_id: null, threshold: 3, quantity: 3 },
      },
    ]);
    expect(after[0]).toMatchObject({ kind: 'low_stock', to: CONTACT, order_id: null, status: 'pending' });
    await createOrder(api, { items: items(1) });
    expect(await lowStock(p.id)).toHaveLength(1);
    const restock = await api.patch(`/api/v1/inventory/${p.id}`, { type: 'product', adjustment: 10 });
    expect(restock.statusCode, restock.body).toBe(200);
    const adjust = await api.patch(`/api/v1/inventory/${p.id}`, { type: 'product', adjustment: -10 });
    expect(adjust.statusCode, adjust.body).toBe(200);
    const crossings = await lowStock(p.id);
    expect(crossings.map((c) => c.refs.quantity)).toEqual([3, 2]);
  });
});

describe('what queues nothing', () => {
  it('a kind turned off queues nothing; the others still go', async () => {
    const other = await createStoreWithKey(app);
    const otherApi = client(app, other.key);
    expect((await otherApi.patch('/api/v1/store', { contact_email: CONTACT })).statusCode).toBe(200);
    await turnOff(app.database.db, other.store.id, 'order_confirmation');
    await turnOff(app.database.db, other.store.id, 'new_order');
    const p = await createProduct(otherApi, { price: '10.00', inventory: 10 });
    const res = await shop.post(
      `/api/storefront/${other.store.slug}/checkout`,
      checkoutBody([{ productId: p.id, quantity: 1 }], PAID),
    );
    expect(res.statusCode, res.body).toBe(201);
    const orderId = res.json().data.id;
    expect(await mailsOfOrder(otherApi, orderId)).toEqual([]);
    expect((await otherApi.post(`/api/v1/orders/${orderId}/fulfill`, {})).statusCode).toBe(200);
    expect((await mailsOfOrder(otherApi, orderId)).map((m) => m.split(' ')[0])).toEqual([
      'shipping_confirmation',
    ]);
  });

  it('a checkout rolled back on stock after its first stock moved queues nothing', async () => {
    const plenty = await createProduct(api, { price: '10.00', inventory: 50 });
    // Created second: a later id, so its stock moves last (the lock order is by id).
    const short = await createProduct(api, { price: '10.00', inventory: 1 });
    const before = await mailsOf(api);
    const body = checkoutBody([
      { productId: plenty.id, quantity: 1 },
      { productId: short.id, quantity: 2 },
    ]);
    const res = await checkout(body);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('insufficient_stock');
    expect(await mailsOf(api)).toEqual(before);
    expect((await api.get(`/api/v1/inventory/${plenty.id}`)).json().data.inventory).toBe(50);
    // The same with a coupon (its writes go after the stock, in a statement of their own).
    const d = await api.post('/api/v1/discounts', {
      code: `RB${Date.now()}`,
      type: 'percentage',
      value: '10',
    });
    expect(d.statusCode).toBe(201);
    const coupon = await checkout({ ...body, couponCode: d.json().data.code });
    expect(coupon.statusCode).toBe(409);
    expect(await mailsOf(api)).toEqual(before);
  });

  it("two stores, one buyer's e-mail: each store's mail goes to its own customer, in its own log", async () => {
    const other = await createStoreWithKey(app);
    const otherApi = client(app, other.key);
    const email = `shared.${Date.now()}@example.com`;
    const mine = await placed(1, { email });
    const p = await createProduct(otherApi, { price: '5.00', inventory: 10 });
    const res = await shop.post(
      `/api/storefront/${other.store.slug}/checkout`,
      checkoutBody([{ productId: p.id, quantity: 1 }], { email }),
    );
    expect(res.statusCode).toBe(201);
    const theirs = res.json().data.id;
    const myConfirmations = (await mailsOf(api, { kind: 'order_confirmation' })).filter(
      (m) => m.to === email,
    );
    expect(myConfirmations.map((m) => m.order_id)).toEqual([mine.order.id]);
    // The other store has no contact e-mail and no staff: its new_order has no one to go to.
    expect((await mailsOf(otherApi)).map((m) => `${m.kind} ${m.to} ${m.order_id}`)).toEqual([
      `order_confirmation ${email} ${theirs}`,
    ]);
  });
});

describe("the store's recipient", () => {
  it("new_order goes to the contact e-mail, else the owner's (not a colleague's)", async () => {
    const other = await createStoreWithKey(app);
    const otherApi = client(app, other.key);
    const owner = `owner.${Date.now()}@example.com`;
    // A colleague who joined first is not the owner.
    const colleague = await app.services.stores.createAdminUser({
      email: `staff.${Date.now()}@example.com`,
      password: 'correct horse battery staple',
      storeSlug: other.store.slug,
    });
    await app.database.db
      .updateTable('admin_user_stores')
      .set({ role: 'staff' })
      .where('admin_user_id', '=', colleague.id)
      .execute();
    await app.services.stores.createAdminUser({
      email: owner,
      password: 'correct horse battery staple',
      storeSlug: other.store.slug,
    });
    const p = await createProduct(otherApi, { price: '5.00', inventory: 10 });
    const first = await createOrder(otherApi, { items: [{ product_id: p.id, quantity: 1 }] });
    expect(await mailsOfOrder(otherApi, first.id)).toEqual([`new_order → ${owner}`]);
    expect((await otherApi.patch('/api/v1/store', { contact_email: 'desk@other.example' })).statusCode).toBe(
      200,
    );
    const second = await createOrder(otherApi, { items: [{ product_id: p.id, quantity: 1 }] });
    expect(await mailsOfOrder(otherApi, second.id)).toEqual(['new_order → desk@other.example']);
  });
});
