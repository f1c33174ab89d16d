import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import {
  type FakeStripe,
  signStripeEvent,
  startFakeStripe,
  stripeEvent,
  stripeKeys,
} from '../helpers/fake-stripe.js';
import { mailsOf, mailsOfOrder } from '../helpers/notification-log.js';
import { checkoutBody } from '../helpers/order-factories.js';

/**
 * Contract §13 with Stripe: an order that waits for its card payment is confirmed (to the buyer and
 * to the store) when the payment succeeds, once however often Stripe repeats it; a refund's e-mail
 * goes when the money moved, by our API or by Stripe's report, and never for a refund Stripe refused.
 */
let app: TestApp;
let stripe: FakeStripe;
let api: Client;
let shop: Client;
let slug: string;
let keys: ReturnType<typeof stripeKeys>;
const CONTACT = 'desk@stripe-shop.example';

beforeAll(async () => {
  stripe = await startFakeStripe();
  app = await buildTestApp({ config: { ...UNLIMITED, stripe: { apiBase: stripe.url, timeoutMs: 2000 } } });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
  shop = client(app);
  slug = store.store.slug;
  keys = stripeKeys();
  expect((await api.put('/api/v1/payments/stripe', keys)).statusCode).toBe(200);
  expect((await api.patch('/api/v1/store', { contact_email: CONTACT })).statusCode).toBe(200);
});
afterAll(async () => {
  await app.close();
  await stripe.close();
});

const deliver = (payload: string) =>
  app.server.inject({
    method: 'POST',
    url: `/api/payments/stripe/${slug}/webhook`,
    headers: {
      'content-type': 'application/json',
      'stripe-signature': signStripeEvent(payload, keys.webhook_secret),
    },
    payload,
  });

async function stripeOrder() {
  const p = await createProduct(api, { price: '10.00', inventory: 5 });
  const body = checkoutBody([{ productId: p.id, quantity: 2 }], { paymentMethod: 'stripe' });
  const res = await shop.post(`/api/storefront/${slug}/checkout`, body);
  expect(res.statusCode, res.body).toBe(201);
  const order = res.json().data;
  return {
    orderId: order.id as string,
    intentId: order.payment.paymentIntentId as string,
    email: body.email,
  };
}

async function paidStripeOrder() {
  const placed = await stripeOrder();
  const paid = await deliver(stripeEvent('payment_intent.succeeded', stripe.succeed(placed.intentId)));
  expect(paid.statusCode).toBe(200);
  return placed;
}

describe('an order awaiting its card payment', () => {
  it('is confirmed when payment_intent.succeeded arrives, not before, and once when it is replayed', async () => {
    const { orderId, intentId, email } = await stripeOrder();
    expect(await mailsOfOrder(api, orderId)).toEqual([]);
    const payload = stripeEvent('payment_intent.succeeded', stripe.succeed(intentId));
    expect((await deliver(payload)).json().data.outcome).toBe('processed');
    const replays = await Promise.all([deliver(payload), deliver(payload), deliver(payload)]);
    for (const replay of replays) expect(replay.json().data.outcome).toBe('replayed');
    // A second event of its own (Stripe may report one success twice under two ids).
    const again = await deliver(stripeEvent('payment_intent.succeeded', stripe.intents.get(intentId)));
    expect(again.statusCode).toBe(200);
    expect(await mailsOfOrder(api, orderId)).toEqual([
      `new_order → ${CONTACT}`,
      `order_confirmation → ${email}`,
    ]);
  });

  it('a failed payment cancels the order and sends nothing: its buyer was never confirmed', async () => {
    const { orderId, intentId } = await stripeOrder();
    const pi = stripe.intents.get(intentId);
    const res = await deliver(
      stripeEvent('payment_intent.payment_failed', { ...pi, status: 'requires_payment_method' }),
    );
    expect(res.statusCode).toBe(200);
    expect((await api.get(`/api/v1/orders/${orderId}`)).json().data.status).toBe('cancelled');
    expect(await mailsOfOrder(api, orderId)).toEqual([]);
  });
});

describe('refunds of a Stripe-paid order', () => {
  it('through our API: refund_issued when Stripe refunds; nothing when Stripe refuses', async () => {
    const { orderId, email } = await paidStripeOrder();
    stripe.fail({ kind: 'status', status: 400 }, /^\/v1\/refunds$/, 1);
    const refused = await api.post(`/api/v1/orders/${orderId}/refunds`, { amount: 5 });
    expect(refused.statusCode, refused.body).toBe(201);
    expect(refused.json().data.status).toBe('failed');
    stripe.heal();
    expect(await mailsOf(api, { order_id: orderId, kind: 'refund_issued' })).toEqual([]);
    const done = await api.post(`/api/v1/orders/${orderId}/refunds`, { amount: 5 });
    expect(done.json().data.status).toBe('succeeded');
    expect((await mailsOf(api, { order_id: orderId, kind: 'refund_issued' })).map((m) => m.to)).toEqual([
      email,
    ]);
  });

  it("charge.refunded: one refund_issued for a refund made in Stripe's dashboard, however often reported", async () => {
    const { orderId, intentId, email } = await paidStripeOrder();
    stripe.dashboardRefund(intentId, 300);
    const payload = stripeEvent('charge.refunded', stripe.chargeOf(intentId));
    expect((await deliver(payload)).json().data.outcome).toBe('processed');
    expect((await deliver(payload)).json().data.outcome).toBe('replayed');
    expect((await deliver(stripeEvent('charge.refunded', stripe.chargeOf(intentId)))).statusCode).toBe(200);
    const refunds = (await api.get(`/api/v1/orders/${orderId}/refunds`)).json().data;
    expect(refunds).toHaveLength(1);
    const mails = await mailsOf(api, { order_id: orderId, kind: 'refund_issued' });
    expect(mails.map((m) => m.to)).toEqual([email]);
    const [row] = await app.database.db
      .selectFrom('notifications')
      .select('refs')
      .where('id', '=', mails[0]?.id ?? '')
      .execute();
    expect(row?.refs).toEqual({ refund_id: refunds[0].id });
  });
});
