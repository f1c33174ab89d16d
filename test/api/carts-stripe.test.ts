import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { cartsOf } from '../helpers/cart-factories.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type FakeStripe, startFakeStripe, stripeKeys } from '../helpers/fake-stripe.js';

/**
 * Contract §9: `complete` takes checkout's payment methods, Stripe included, through checkout's
 * two phases: the order in the cart's transaction, the PaymentIntent after commit (a local fake of
 * Stripe's API answers the SDK).
 */
let app: TestApp;
let stripe: FakeStripe;
let api: Client;
let carts: ReturnType<typeof cartsOf>;
let keys: ReturnType<typeof stripeKeys>;

beforeAll(async () => {
  stripe = await startFakeStripe();
  app = await buildTestApp({ config: { ...UNLIMITED, stripe: { apiBase: stripe.url, timeoutMs: 700 } } });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
  carts = cartsOf(client(app), store.store.slug);
  keys = stripeKeys();
  stripe.allowKey(keys.secret_key);
  expect((await api.put('/api/v1/payments/stripe', keys)).statusCode).toBe(200);
});
afterAll(async () => {
  await app.close();
  await stripe.close();
});

describe('completing a cart with stripe', () => {
  it('201 with the order pending and its payment session; completing again answers the same order', async () => {
    const p = await createProduct(api, { price: '12.34', inventory: 5 });
    const created = await carts.create({
      items: [{ productId: p.id, quantity: 2 }],
      email: 'stripe@example.com',
    });
    const id = created.json().data.id;
    const res = await carts.complete(id, { paymentMethod: 'stripe' });
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json().data;
    expect(order).toMatchObject({ status: 'pending', paymentStatus: 'pending', total: 24.68 });
    const intent = [...stripe.intents.values()].find((pi) => pi.metadata.order_id === order.id);
    expect(order.payment).toEqual({
      provider: 'stripe',
      paymentIntentId: intent?.id,
      clientSecret: intent?.client_secret,
      publishableKey: keys.publishable_key,
      status: 'requires_payment',
    });
    const again = await carts.complete(id, { paymentMethod: 'stripe' });
    expect(again.statusCode).toBe(200);
    expect(again.json().data.id).toBe(order.id);
    expect((await api.get(`/api/v1/inventory/${p.id}`)).json().data.inventory).toBe(3);
  });

  it('Stripe unreachable: 503, the order cancelled with its stock back, and the cart open again to retry', async () => {
    const p = await createProduct(api, { price: '5.00', inventory: 4 });
    const created = await carts.create({
      items: [{ productId: p.id, quantity: 1 }],
      email: 'retry@example.com',
    });
    const id = created.json().data.id;
    stripe.fail({ kind: 'status', status: 500 }, /^\/v1\/payment_intents$/);
    const failed = await carts.complete(id, { paymentMethod: 'stripe' });
    stripe.heal();
    expect(failed.statusCode).toBe(503);
    expect(failed.json().error.code).toBe('unavailable');
    const orders = (await api.get('/api/v1/orders?limit=100')).json().data as {
      status: string;
      customer: { email: string };
    }[];
    const mine = orders.filter((o) => o.customer.email === 'retry@example.com');
    expect(mine.map((o) => o.status)).toEqual(['cancelled']);
    expect((await api.get(`/api/v1/inventory/${p.id}`)).json().data.inventory).toBe(4);
    expect((await carts.addItem(id, { productId: p.id, quantity: 1 })).statusCode).toBe(200);
    const paid = await carts.complete(id, { paymentMethod: 'stripe' });
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json().data).toMatchObject({ status: 'pending', paymentStatus: 'pending', total: 10 });
  });
});
