import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/platform/db/transaction.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, eventsOf, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type FakeStripe, startFakeStripe, stripeKeys } from '../helpers/fake-stripe.js';
import { mailsOfOrder } from '../helpers/notification-log.js';
import { checkoutBody } from '../helpers/order-factories.js';

/** PAYMENT_HOLD_MINUTES of 0.03: an order waits 1.8 s for its payment. */
const HOLD_MINUTES = 0.03;

let app: TestApp;
let stripe: FakeStripe;
let worker: { stop(): Promise<void> };
let api: Client;
let shop: Client;
let slug: string;
let storeId: string;

beforeAll(async () => {
  stripe = await startFakeStripe();
  app = await buildTestApp({
    config: {
      ...UNLIMITED,
      paymentHoldMinutes: HOLD_MINUTES,
      stripe: { apiBase: stripe.url, timeoutMs: 2000 },
    },
  });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
  shop = client(app);
  slug = store.store.slug;
  storeId = store.store.id;
  expect((await api.put('/api/v1/payments/stripe', stripeKeys())).statusCode).toBe(200);
  worker = startTestWorker(app);
});
afterAll(async () => {
  await worker?.stop();
  await app.close();
  await stripe.close();
});

const stockOf = async (id: string) => (await api.get(`/api/v1/inventory/${id}`)).json().data.inventory;
const orderOf = async (id: string) => (await api.get(`/api/v1/orders/${id}`)).json().data;

/** Polls until `check` holds (the worker acts on its own time). */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stripeOrder(quantity = 2) {
  const product = await createProduct(api, { price: '10.00', inventory: 5 });
  const res = await shop.post(
    `/api/storefront/${slug}/checkout`,
    checkoutBody([{ productId: product.id, quantity }], { paymentMethod: 'stripe' }),
  );
  expect(res.statusCode).toBe(201);
  return { product, order: res.json().data, intentId: res.json().data.payment.paymentIntentId as string };
}

describe('payment holds (PAYMENT_HOLD_MINUTES) on the worker', () => {
  it('an order still unpaid after the hold is cancelled (payment_expired), its stock back, its PaymentIntent cancelled', async () => {
    const started = Date.now();
    const { product, order, intentId } = await stripeOrder(2);
    expect(await stockOf(product.id)).toBe(3);
    const after = await eventually(
      () => orderOf(order.id),
      (o) => o.status === 'cancelled',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(HOLD_MINUTES * 60_000 - 100);
    expect(after).toMatchObject({ status: 'cancelled', cancel_reason: 'payment_expired' });
    expect(await stockOf(product.id)).toBe(5);
    expect(stripe.intents.get(intentId)?.status).toBe('canceled');
    const cancelled = (await eventsOf(app.database.db, storeId)).filter(
      (e) => e.name === 'order.cancelled' && (e.data as { orderId: string }).orderId === order.id,
    );
    expect(cancelled).toHaveLength(1);
    // Never confirmed (it was never paid), so no cancellation e-mail either (§13, docs/decisions.md).
    expect(await mailsOfOrder(api, order.id)).toEqual([]);
  });

  it('an order paid at Stripe whose webhook never came is marked paid when its hold ends', async () => {
    const { product, order, intentId } = await stripeOrder(1);
    stripe.succeed(intentId);
    const after = await eventually(
      () => orderOf(order.id),
      (o) => o.payment_status === 'paid',
    );
    expect(after).toMatchObject({ status: 'processing', payment_status: 'paid', amount_paid: 10 });
    expect(await stockOf(product.id)).toBe(4);
    // The worker's payment confirms the order to the buyer (this store has no one for new_order).
    expect(await mailsOfOrder(api, order.id)).toEqual([`order_confirmation → ${after.customer.email}`]);
  });

  it('a PaymentIntent that succeeded for less than the order does not pay it: the hold still releases it', async () => {
    const { product, order, intentId } = await stripeOrder(2);
    // Stripe reports success with 0.01 received of 20.00 (a partial capture): not this order's payment.
    const pi = stripe.succeed(intentId);
    pi.amount_received = 1;
    const after = await eventually(
      () => orderOf(order.id),
      (o) => o.status === 'cancelled' || o.payment_status !== 'pending',
    );
    expect(after).toMatchObject({
      status: 'cancelled',
      cancel_reason: 'payment_expired',
      payment_status: 'pending',
      amount_paid: 0,
    });
    expect(await stockOf(product.id)).toBe(5);
  });

  it('an order whose PaymentIntent call never completed is found by its idempotency key and released', async () => {
    const product = await createProduct(api, { price: '4.00', inventory: 2 });
    // Phase (a) only, as when the server dies between the order's commit and Stripe's answer.
    const ctx = {
      storeId,
      actor: { kind: 'system' as const, id: 'test' },
      source: 'system' as const,
      scopes: [],
    };
    const placed = await inTransaction(app.database.db, (tx) =>
      app.services.checkout.place(
        tx,
        ctx,
        checkoutBody([{ productId: product.id, quantity: 2 }], { paymentMethod: 'stripe' }) as never,
      ),
    );
    expect(await stockOf(product.id)).toBe(0);
    const after = await eventually(
      () => orderOf(placed.order.id),
      (o) => o.status === 'cancelled',
    );
    expect(after.cancel_reason).toBe('payment_expired');
    expect(await stockOf(product.id)).toBe(2);
    const intent = [...stripe.intents.values()].find((pi) => pi.metadata.order_id === placed.order.id);
    expect(intent?.status).toBe('canceled');
    const row = await app.database.db
      .selectFrom('stripe_payments')
      .selectAll()
      .where('order_id', '=', placed.order.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('cancelled');
  });
});
