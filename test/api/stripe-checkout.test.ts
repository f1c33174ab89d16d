import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, eventsOf, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type FakeStripe, startFakeStripe, stripeKeys } from '../helpers/fake-stripe.js';
import { checkoutBody } from '../helpers/order-factories.js';

let app: TestApp;
let stripe: FakeStripe;
let api: Client;
let shop: Client;
let slug: string;
let storeId: string;
let keys: ReturnType<typeof stripeKeys>;

/** The SDK gives up on a request after this (and retries once): a hanging Stripe costs about 2×. */
const STRIPE_TIMEOUT_MS = 700;

beforeAll(async () => {
  stripe = await startFakeStripe();
  app = await buildTestApp({
    config: { ...UNLIMITED, stripe: { apiBase: stripe.url, timeoutMs: STRIPE_TIMEOUT_MS } },
  });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
  shop = client(app);
  slug = store.store.slug;
  storeId = store.store.id;
  keys = stripeKeys();
  stripe.allowKey(keys.secret_key);
  expect((await api.put('/api/v1/payments/stripe', keys)).statusCode).toBe(200);
});
afterAll(async () => {
  await app.close();
  await stripe.close();
});
beforeEach(() => stripe.heal());

const stockOf = async (id: string) => (await api.get(`/api/v1/inventory/${id}`)).json().data.inventory;
const pay = (productId: string, quantity = 1, headers?: Record<string, string>) =>
  shop.post(
    `/api/storefront/${slug}/checkout`,
    checkoutBody([{ productId, quantity }], { paymentMethod: 'stripe' }),
    headers,
  );

describe('checkout with paymentMethod stripe', () => {
  it('places the order pending with its stock held, then creates a PaymentIntent after commit', async () => {
    const p = await createProduct(api, { price: '12.34', inventory: 5 });
    const res = await pay(p.id, 2);
    expect(res.statusCode).toBe(201);
    const order = res.json().data;
    expect(order).toMatchObject({ status: 'pending', paymentStatus: 'pending', total: 24.68 });
    const intent = [...stripe.intents.values()].find((pi) => pi.metadata.order_id === order.id);
    expect(intent).toBeDefined();
    expect(order.payment).toEqual({
      provider: 'stripe',
      paymentIntentId: intent?.id,
      clientSecret: intent?.client_secret,
      publishableKey: keys.publishable_key,
      status: 'requires_payment',
    });
    // The SDK's request, as Stripe receives it: form-encoded, Bearer secret key, idempotency key.
    const sent = stripe.requests.find(
      (r) => r.path === '/v1/payment_intents' && r.form['metadata[order_id]'] === order.id,
    );
    expect(sent).toMatchObject({
      method: 'POST',
      authorization: `Bearer ${keys.secret_key}`,
      idempotencyKey: `emporium-order-${order.id}`,
      form: {
        amount: '2468',
        currency: 'usd',
        'metadata[store_id]': storeId,
        'metadata[order_id]': order.id,
        'metadata[order_number]': String(order.orderNumber),
      },
    });
    expect(await stockOf(p.id)).toBe(3);
    const merchant = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
    expect(merchant).toMatchObject({
      status: 'pending',
      payment_status: 'pending',
      payment_method: 'stripe',
      amount_paid: 0,
    });
  });

  it('an Idempotency-Key replay answers the same order and the same PaymentIntent', async () => {
    const p = await createProduct(api, { price: '5.00', inventory: 5 });
    const body = checkoutBody([{ productId: p.id, quantity: 1 }], { paymentMethod: 'stripe' });
    const first = await shop.post(`/api/storefront/${slug}/checkout`, body, {
      'idempotency-key': 'stripe-replay-1',
    });
    const second = await shop.post(`/api/storefront/${slug}/checkout`, body, {
      'idempotency-key': 'stripe-replay-1',
    });
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json().data.id).toBe(first.json().data.id);
    expect(second.json().data.payment).toEqual(first.json().data.payment);
    expect(await stockOf(p.id)).toBe(4);
  });

  it('Stripe answering 500: 503, the order cancelled and its stock back', async () => {
    const p = await createProduct(api, { price: '7.00', inventory: 4 });
    stripe.fail({ kind: 'status', status: 500 }, /^\/v1\/payment_intents$/);
    const res = await pay(p.id, 3);
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('unavailable');
    expect(await stockOf(p.id)).toBe(4);
    const orders = (await api.get('/api/v1/orders?limit=1')).json().data;
    expect(orders[0]).toMatchObject({ status: 'cancelled' });
    const detail = (await api.get(`/api/v1/orders/${orders[0].id}`)).json().data;
    expect(detail).toMatchObject({ cancel_reason: 'payment_unavailable', payment_status: 'pending' });
    const pending = (await api.get('/api/v1/orders?status=pending&payment_status=pending')).json().data;
    expect(pending.some((o: { id: string }) => o.id === detail.id)).toBe(false);
  });

  it('Stripe not answering within the SDK timeout: 503, the order cancelled and its stock back', async () => {
    const p = await createProduct(api, { price: '7.00', inventory: 2 });
    stripe.fail({ kind: 'hang' }, /^\/v1\/payment_intents$/);
    const started = Date.now();
    const res = await pay(p.id, 2);
    expect(res.statusCode).toBe(503);
    expect(Date.now() - started).toBeGreaterThanOrEqual(STRIPE_TIMEOUT_MS);
    expect(await stockOf(p.id)).toBe(2);
    const last = (await api.get('/api/v1/orders?limit=1')).json().data[0];
    expect(last.status).toBe('cancelled');
    const events = (await eventsOf(app.database.db, storeId)).filter(
      (e) => e.name === 'order.cancelled' && (e.data as { orderId?: string }).orderId === last.id,
    );
    expect(events).toHaveLength(1);
  });

  it('refuses an order with nothing to pay, and an unknown method, placing nothing', async () => {
    const free = await createProduct(api, { price: '0.00', inventory: 1 });
    expect((await pay(free.id)).statusCode).toBe(400);
    const p = await createProduct(api, { price: '1.00', inventory: 1 });
    const res = await shop.post(
      `/api/storefront/${slug}/checkout`,
      checkoutBody([{ productId: p.id, quantity: 1 }], { paymentMethod: 'paypal' }),
    );
    expect(res.statusCode).toBe(400);
    expect(await stockOf(free.id)).toBe(1);
  });

  it('a cart completed with stripe answers its PaymentIntent; completing it again answers the same', async () => {
    const p = await createProduct(api, { price: '8.00', inventory: 3 });
    const cart = await shop.post(`/api/storefront/${slug}/carts`, {
      items: [{ productId: p.id, quantity: 2 }],
      email: 'cart.buyer@example.com',
    });
    expect(cart.statusCode).toBe(201);
    const url = `/api/storefront/${slug}/carts/${cart.json().data.id}/complete`;
    const first = await shop.post(url, { paymentMethod: 'stripe' });
    expect(first.statusCode).toBe(201);
    const order = first.json().data;
    expect(order).toMatchObject({ status: 'pending', paymentStatus: 'pending', total: 16 });
    expect(order.payment).toMatchObject({ provider: 'stripe', publishableKey: keys.publishable_key });
    expect(stripe.intents.get(order.payment.paymentIntentId)?.metadata.order_id).toBe(order.id);
    const again = await shop.post(url, { paymentMethod: 'stripe' });
    expect(again.statusCode).toBe(200);
    expect(again.json().data.payment).toEqual(order.payment);
    expect(await stockOf(p.id)).toBe(1);
  });

  it('no Stripe call runs inside a transaction: the SDK refuses it', async () => {
    const { inTransaction } = await import('../../src/platform/db/transaction.js');
    const account = await app.services.payments.accounts.find(app.database.db, storeId);
    if (!account) throw new Error('no account');
    const sdk = await app.services.payments.accounts.client(account);
    const before = stripe.requests.length;
    const error = await inTransaction(app.database.db, () => sdk.paymentIntents.retrieve('pi_anything')).then(
      () => undefined,
      (e: { detail?: Error }) => e,
    );
    expect(error?.detail?.message).toMatch(/must not run while a database transaction is open/);
    expect(stripe.requests.length).toBe(before);
    // Outside it, the same call reaches Stripe.
    await sdk.paymentIntents.retrieve('pi_anything').catch(() => undefined);
    expect(stripe.requests.length).toBe(before + 1);
  });
});
