import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, eventsOf, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import {
  type FakeStripe,
  signStripeEvent,
  startFakeStripe,
  stripeEvent,
  stripeKeys,
} from '../helpers/fake-stripe.js';
import { checkoutBody } from '../helpers/order-factories.js';

let app: TestApp;
let stripe: FakeStripe;
let api: Client;
let shop: Client;
let slug: string;
let storeId: string;
let keys: ReturnType<typeof stripeKeys>;

beforeAll(async () => {
  stripe = await startFakeStripe();
  app = await buildTestApp({ config: { ...UNLIMITED, stripe: { apiBase: stripe.url, timeoutMs: 2000 } } });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
  shop = client(app);
  slug = store.store.slug;
  storeId = store.store.id;
  keys = stripeKeys();
  expect((await api.put('/api/v1/payments/stripe', keys)).statusCode).toBe(200);
});
afterAll(async () => {
  await app.close();
  await stripe.close();
});

const stockOf = async (id: string) => (await api.get(`/api/v1/inventory/${id}`)).json().data.inventory;
const orderOf = async (id: string) => (await api.get(`/api/v1/orders/${id}`)).json().data;

/** A Stripe order of `quantity` units of a new product with stock 5; its PaymentIntent. */
async function stripeOrder(quantity = 2) {
  const p = await createProduct(api, { price: '10.00', inventory: 5 });
  const res = await shop.post(
    `/api/storefront/${slug}/checkout`,
    checkoutBody([{ productId: p.id, quantity }], { paymentMethod: 'stripe' }),
  );
  expect(res.statusCode).toBe(201);
  const order = res.json().data;
  return { product: p, order, intentId: order.payment.paymentIntentId as string };
}

function deliver(payload: string, signature?: string, target = slug) {
  return app.server.inject({
    method: 'POST',
    url: `/api/payments/stripe/${target}/webhook`,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(signature ? { 'stripe-signature': signature } : {}),
    },
    payload,
  });
}
const signed = (payload: string) => deliver(payload, signStripeEvent(payload, keys.webhook_secret));
const eventsNamed = async (name: string, orderId: string) =>
  (await eventsOf(app.database.db, storeId)).filter(
    (e) => e.name === name && (e.data as { orderId?: string; id?: string }).orderId === orderId,
  );

describe('POST /api/payments/stripe/{slug}/webhook', () => {
  it('payment_intent.succeeded pays the order once; a replay answers 200 and does nothing', async () => {
    const { order, intentId } = await stripeOrder();
    const payload = stripeEvent('payment_intent.succeeded', stripe.succeed(intentId));
    const res = await signed(payload);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ received: true, outcome: 'processed' });
    expect(await orderOf(order.id)).toMatchObject({
      status: 'processing',
      payment_status: 'paid',
      amount_paid: 20,
      balance_due: 0,
    });
    const replay = await signed(payload);
    expect(replay.statusCode).toBe(200);
    expect(replay.json().data.outcome).toBe('replayed');
    const paid = (await eventsOf(app.database.db, storeId)).filter((e) => e.name === 'order.paid');
    expect(paid.filter((e) => JSON.stringify(e.data).includes(order.id))).toHaveLength(1);
  });

  it("payment_intent.succeeded queues the buyer's push notification, as other payments do", async () => {
    const { order, intentId } = await stripeOrder(1);
    const customerId = (await orderOf(order.id)).customer.id as string;
    await app.database.db
      .insertInto('customer_devices')
      .values({
        id: newId(),
        store_id: storeId,
        customer_id: customerId,
        token: `tok-${order.id}`,
        platform: 'ios',
      })
      .execute();
    const pushes = () =>
      app.database.db
        .selectFrom('push_notifications')
        .selectAll()
        .where('customer_id', '=', customerId)
        .execute();
    expect(await pushes()).toHaveLength(0);
    expect((await signed(stripeEvent('payment_intent.succeeded', stripe.succeed(intentId)))).statusCode).toBe(
      200,
    );
    const queued = await pushes();
    expect(queued).toHaveLength(1);
    expect(`${queued[0]?.title} ${queued[0]?.body}`).toContain(String(order.orderNumber));
  });

  it("accepts the stripe SDK's own generateTestHeaderString", async () => {
    const { order, intentId } = await stripeOrder(1);
    const payload = stripeEvent('payment_intent.succeeded', stripe.succeed(intentId));
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: keys.webhook_secret });
    const res = await deliver(payload, header);
    expect(res.statusCode).toBe(200);
    expect((await orderOf(order.id)).payment_status).toBe('paid');
  });

  it('refuses a bad, stale or missing signature with 400 and changes nothing', async () => {
    const { order, intentId } = await stripeOrder(1);
    const payload = stripeEvent('payment_intent.succeeded', stripe.succeed(intentId));
    const cases = [
      deliver(payload, signStripeEvent(payload, 'whsec_not_the_right_secret_at_all')),
      deliver(payload, signStripeEvent(payload, keys.webhook_secret, Math.floor(Date.now() / 1000) - 6 * 60)),
      deliver(
        payload.replace('"livemode":false', '"livemode":true'),
        signStripeEvent(payload, keys.webhook_secret),
      ),
      deliver(payload, 'garbage'),
      deliver(payload),
    ];
    for (const res of await Promise.all(cases)) {
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.details[0].field).toBe('Stripe-Signature');
    }
    expect(await orderOf(order.id)).toMatchObject({ status: 'pending', payment_status: 'pending' });
    const rows = await app.database.db
      .selectFrom('stripe_events')
      .select('event_id')
      .where('store_id', '=', storeId)
      .execute();
    expect(rows.map((r) => r.event_id)).not.toContain(JSON.parse(payload).id);
  });

  it('payment_intent.payment_failed cancels the order (payment_failed), stock back, and the PaymentIntent', async () => {
    const { order, product, intentId } = await stripeOrder(2);
    expect(await stockOf(product.id)).toBe(3);
    const pi = stripe.intents.get(intentId);
    const res = await signed(
      stripeEvent('payment_intent.payment_failed', { ...pi, status: 'requires_payment_method' }),
    );
    expect(res.statusCode).toBe(200);
    expect(await orderOf(order.id)).toMatchObject({ status: 'cancelled', cancel_reason: 'payment_failed' });
    expect(await stockOf(product.id)).toBe(5);
    const cancelled = await eventsNamed('order.cancelled', order.id);
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]?.data).toMatchObject({ cancelReason: 'payment_failed' });
    expect(stripe.intents.get(intentId)?.status).toBe('canceled');
  });

  it('payment_intent.canceled cancels the order with its stock back', async () => {
    const { order, product, intentId } = await stripeOrder(1);
    const pi = stripe.intents.get(intentId);
    const res = await signed(stripeEvent('payment_intent.canceled', { ...pi, status: 'canceled' }));
    expect(res.statusCode).toBe(200);
    expect(await orderOf(order.id)).toMatchObject({ status: 'cancelled', cancel_reason: 'payment_failed' });
    expect(await stockOf(product.id)).toBe(5);
  });

  it('other events answer 200 and are ignored', async () => {
    const res = await signed(stripeEvent('customer.created', { id: 'cus_1', object: 'customer' }));
    expect(res.statusCode).toBe(200);
    expect(res.json().data.outcome).toBe('ignored');
  });

  it("ignores a PaymentIntent of another store's order, and 404s an unknown store", async () => {
    const { order, intentId } = await stripeOrder(1);
    const pi = stripe.succeed(intentId);
    const foreign = { ...pi, metadata: { ...pi.metadata, store_id: '0191a8f0-0000-7000-8000-000000000000' } };
    const res = await signed(stripeEvent('payment_intent.succeeded', foreign));
    expect(res.json().data.outcome).toBe('ignored');
    expect((await orderOf(order.id)).payment_status).toBe('pending');
    const payload = stripeEvent('payment_intent.succeeded', pi);
    const unknown = await deliver(payload, signStripeEvent(payload, keys.webhook_secret), 'no-such-store');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');
  });

  it('the same event delivered 10 times at once pays the order once, with one order.paid', async () => {
    const { order, intentId } = await stripeOrder(1);
    const payload = stripeEvent('payment_intent.succeeded', stripe.succeed(intentId));
    const signature = signStripeEvent(payload, keys.webhook_secret);
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(payload, signature)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    const outcomes = answers.map((a) => a.json().data.outcome).sort();
    expect(outcomes).toEqual(['processed', ...Array(9).fill('replayed')]);
    expect(await orderOf(order.id)).toMatchObject({ payment_status: 'paid', amount_paid: 10 });
    const paid = (await eventsOf(app.database.db, storeId)).filter(
      (e) => e.name === 'order.paid' && JSON.stringify(e.data).includes(order.id),
    );
    expect(paid).toHaveLength(1);
  });

  it("the schema refuses a payment row of one store naming another store's order", async () => {
    const { order } = await stripeOrder(1);
    const b = await createStoreWithKey(app);
    const error = await app.database.db
      .insertInto('stripe_payments')
      .values({
        store_id: b.store.id,
        order_id: order.id,
        amount: 100,
        currency: 'USD',
        expires_at: new Date(),
      })
      .execute()
      .then(
        () => undefined,
        (e: { code?: string; constraint?: string }) => e,
      );
    expect(error).toMatchObject({ code: '23503', constraint: 'stripe_payments_order_id_tenant_fkey' });
  });

  it('a store without Stripe answers 400', async () => {
    const b = await createStoreWithKey(app);
    const payload = stripeEvent('payment_intent.succeeded', { id: 'pi_x', object: 'payment_intent' });
    const res = await deliver(payload, signStripeEvent(payload, keys.webhook_secret), b.store.slug);
    expect(res.statusCode).toBe(400);
  });
});
