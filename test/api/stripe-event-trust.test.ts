import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/**
 * Signed Stripe events whose content does not fit the order they name (issue 29, item 3): another
 * PaymentIntent, another currency, less money than the order's total, another store, refunds beyond
 * what was paid. Each answers 200 (Stripe must not retry), changes nothing (or records the capped
 * refund only) and is logged as a warning without secrets.
 */

interface Store {
  api: Client;
  slug: string;
  storeId: string;
  keys: ReturnType<typeof stripeKeys>;
}

let app: TestApp;
let stripe: FakeStripe;
let shop: Client;
let a: Store;
let b: Store;
const logged: Record<string, unknown>[] = [];

async function stripeStore(): Promise<Store> {
  const store = await createStoreWithKey(app);
  const keys = stripeKeys();
  const api = client(app, store.key);
  expect((await api.put('/api/v1/payments/stripe', keys)).statusCode).toBe(200);
  return { api, slug: store.store.slug, storeId: store.store.id, keys };
}

beforeAll(async () => {
  stripe = await startFakeStripe();
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logged.push(JSON.parse(line));
      done();
    },
  });
  app = await buildTestApp({
    config: { ...UNLIMITED, stripe: { apiBase: stripe.url, timeoutMs: 2000 } },
    logger: pino({ level: 'warn' }, stream),
  });
  shop = client(app);
  a = await stripeStore();
  b = await stripeStore();
});
afterAll(async () => {
  await app.close();
  await stripe.close();
});

const orderOf = async (id: string, store = a) => (await store.api.get(`/api/v1/orders/${id}`)).json().data;
const stockOf = async (id: string) => (await a.api.get(`/api/v1/inventory/${id}`)).json().data.inventory;

/** A Stripe order of store A: 2 units of 10.00 (stock 5 → 3 held). */
async function stripeOrder() {
  const product = await createProduct(a.api, { price: '10.00', inventory: 5 });
  const res = await shop.post(
    `/api/storefront/${a.slug}/checkout`,
    checkoutBody([{ productId: product.id, quantity: 2 }], { paymentMethod: 'stripe' }),
  );
  expect(res.statusCode).toBe(201);
  const order = res.json().data;
  return { product, order, intentId: order.payment.paymentIntentId as string };
}

async function deliver(type: string, object: unknown, store = a) {
  const payload = stripeEvent(type, object);
  const res = await app.server.inject({
    method: 'POST',
    url: `/api/payments/stripe/${store.slug}/webhook`,
    headers: {
      'content-type': 'application/json',
      'stripe-signature': signStripeEvent(payload, store.keys.webhook_secret),
    },
    payload,
  });
  return { res, eventId: JSON.parse(payload).id as string };
}

/** The warning logged for an event, which must name neither key nor secret of any store. */
function warningOf(eventId: string) {
  const line = logged.find((l) => l.eventId === eventId);
  expect(line, `a warning for ${eventId}`).toBeDefined();
  expect(line?.level).toBe(40);
  const text = JSON.stringify(line);
  for (const store of [a, b]) {
    expect(text).not.toContain(store.keys.secret_key);
    expect(text).not.toContain(store.keys.webhook_secret);
  }
  return line as Record<string, unknown>;
}

/** The order is exactly as checkout left it: unpaid, its stock held, no order.paid event. */
async function expectUntouched(order: { id: string }, productId: string) {
  expect(await orderOf(order.id)).toMatchObject({
    status: 'pending',
    payment_status: 'pending',
    amount_paid: 0,
  });
  expect(await stockOf(productId)).toBe(3);
  const paid = (await eventsOf(app.database.db, a.storeId)).filter(
    (e) => e.name === 'order.paid' && JSON.stringify(e.data).includes(order.id),
  );
  expect(paid).toHaveLength(0);
}

describe('payment_intent events that do not fit the order', () => {
  it('a succeeded PaymentIntent other than the one stored on the order is ignored', async () => {
    const { order, product, intentId } = await stripeOrder();
    const pi = stripe.succeed(intentId);
    const { res, eventId } = await deliver('payment_intent.succeeded', { ...pi, id: 'pi_someone_else' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ received: true, outcome: 'ignored' });
    await expectUntouched(order, product.id);
    expect(warningOf(eventId)).toMatchObject({ paymentIntentId: 'pi_someone_else' });
  });

  it('a succeeded PaymentIntent in another currency is ignored', async () => {
    const { order, product, intentId } = await stripeOrder();
    const pi = stripe.succeed(intentId);
    const { res, eventId } = await deliver('payment_intent.succeeded', { ...pi, currency: 'eur' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.outcome).toBe('ignored');
    await expectUntouched(order, product.id);
    expect(String(warningOf(eventId).reason)).toContain('currency');
  });

  it('less money received than the order total is ignored: the order is not left partially paid', async () => {
    const { order, product, intentId } = await stripeOrder();
    const pi = stripe.succeed(intentId);
    for (const short of [{ amount_received: 1 }, { amount: 1, amount_received: 1 }]) {
      const { res, eventId } = await deliver('payment_intent.succeeded', { ...pi, ...short });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.outcome).toBe('ignored');
      expect(String(warningOf(eventId).reason)).toContain('amount');
    }
    await expectUntouched(order, product.id);
    // The real, full payment still pays the order afterwards.
    const { res } = await deliver('payment_intent.succeeded', pi);
    expect(res.json().data.outcome).toBe('processed');
    expect(await orderOf(order.id)).toMatchObject({ payment_status: 'paid', amount_paid: 20 });
  });

  it('a failed or cancelled PaymentIntent other than the stored one does not cancel the order', async () => {
    const { order, product, intentId } = await stripeOrder();
    const pi = stripe.intents.get(intentId);
    for (const type of ['payment_intent.payment_failed', 'payment_intent.canceled']) {
      const { res, eventId } = await deliver(type, { ...pi, id: 'pi_not_this_order', status: 'canceled' });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.outcome).toBe('ignored');
      warningOf(eventId);
    }
    await expectUntouched(order, product.id);
    expect(stripe.intents.get(intentId)?.status).not.toBe('canceled');
  });

  it("an event naming store A's order, signed for store B, changes nothing in either store", async () => {
    const { order, product, intentId } = await stripeOrder();
    const pi = stripe.succeed(intentId);
    const claimed = { ...pi, metadata: { ...pi.metadata, store_id: b.storeId } };
    for (const type of ['payment_intent.succeeded', 'payment_intent.payment_failed']) {
      const { res, eventId } = await deliver(type, claimed, b);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.outcome).toBe('ignored');
      warningOf(eventId);
    }
    expect((await b.api.get(`/api/v1/orders/${order.id}`)).statusCode).toBe(404);
    await expectUntouched(order, product.id);
  });
});

describe('charge.refunded that does not fit the order', () => {
  /** An order of A paid 20.00 through Stripe. */
  async function paidOrder() {
    const placed = await stripeOrder();
    const { res } = await deliver('payment_intent.succeeded', stripe.succeed(placed.intentId));
    expect(res.json().data.outcome).toBe('processed');
    return placed;
  }
  const refundsOf = async (orderId: string) =>
    (await a.api.get(`/api/v1/orders/${orderId}/refunds`)).json().data as {
      amount: number;
      provider_refund_id: string;
    }[];

  it('refunds beyond what was paid are capped at what was paid', async () => {
    const { order, intentId } = await paidOrder();
    const huge = stripe.dashboardRefund(intentId, 77_748);
    const { res, eventId } = await deliver('charge.refunded', stripe.chargeOf(intentId));
    expect(res.statusCode).toBe(200);
    expect(await refundsOf(order.id)).toEqual([
      expect.objectContaining({ amount: 20, provider_refund_id: huge.id }),
    ]);
    expect(await orderOf(order.id)).toMatchObject({ amount_refunded: 20, payment_status: 'refunded' });
    expect(warningOf(eventId)).toMatchObject({ providerRefundId: huge.id });
    // A second report adds nothing: the order is refunded in full already.
    stripe.dashboardRefund(intentId, 500);
    expect((await deliver('charge.refunded', stripe.chargeOf(intentId))).res.statusCode).toBe(200);
    expect(await orderOf(order.id)).toMatchObject({ amount_refunded: 20 });
    expect(await refundsOf(order.id)).toHaveLength(1);
  });

  it('refunds of another PaymentIntent carried in the charge, or a charge in another currency, are not recorded', async () => {
    const { order, intentId } = await paidOrder();
    const other = await paidOrder();
    const foreign = stripe.dashboardRefund(other.intentId, 700);
    const charge = stripe.chargeOf(intentId);
    const forged = { ...charge, refunds: { ...charge.refunds, data: [foreign] }, amount_refunded: 700 };
    const first = await deliver('charge.refunded', forged);
    expect(first.res.statusCode).toBe(200);
    expect(await refundsOf(order.id)).toEqual([]);
    stripe.dashboardRefund(intentId, 300);
    const { res, eventId } = await deliver('charge.refunded', {
      ...stripe.chargeOf(intentId),
      currency: 'eur',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.outcome).toBe('ignored');
    expect(String(warningOf(eventId).reason)).toContain('currency');
    expect(await refundsOf(order.id)).toEqual([]);
    expect(await orderOf(order.id)).toMatchObject({ amount_refunded: 0, payment_status: 'paid' });
  });

  it('a charge of a PaymentIntent that is no order of this store is ignored', async () => {
    const { order, intentId } = await paidOrder();
    stripe.dashboardRefund(intentId, 300);
    const { res, eventId } = await deliver('charge.refunded', stripe.chargeOf(intentId), b);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.outcome).toBe('ignored');
    warningOf(eventId);
    expect(await refundsOf(order.id)).toEqual([]);
  });
});
