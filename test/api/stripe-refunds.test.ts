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
import { checkoutBody } from '../helpers/order-factories.js';

let app: TestApp;
let stripe: FakeStripe;
let api: Client;
let shop: Client;
let slug: string;
let keys: ReturnType<typeof stripeKeys>;

beforeAll(async () => {
  stripe = await startFakeStripe();
  app = await buildTestApp({ config: { ...UNLIMITED, stripe: { apiBase: stripe.url, timeoutMs: 2000 } } });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
  shop = client(app);
  slug = store.store.slug;
  keys = stripeKeys();
  stripe.allowKey(keys.secret_key);
  expect((await api.put('/api/v1/payments/stripe', keys)).statusCode).toBe(200);
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
const orderOf = async (id: string) => (await api.get(`/api/v1/orders/${id}`)).json().data;

/** An order of 20.00 paid with Stripe: checkout, the buyer pays, Stripe's webhook arrives. */
async function paidStripeOrder() {
  const p = await createProduct(api, { price: '10.00', inventory: 5 });
  const res = await shop.post(
    `/api/storefront/${slug}/checkout`,
    checkoutBody([{ productId: p.id, quantity: 2 }], { paymentMethod: 'stripe' }),
  );
  const order = res.json().data;
  const intentId = order.payment.paymentIntentId as string;
  expect((await deliver(stripeEvent('payment_intent.succeeded', stripe.succeed(intentId)))).statusCode).toBe(
    200,
  );
  expect((await orderOf(order.id)).payment_status).toBe('paid');
  return { order, intentId, product: p };
}

describe('refunds of Stripe-paid orders', () => {
  it('a partial refund goes through Stripe (idempotency key = refund id) and succeeds', async () => {
    const { order, intentId } = await paidStripeOrder();
    const res = await api.post(`/api/v1/orders/${order.id}/refunds`, { amount: 5, reason: 'scratched' });
    expect(res.statusCode).toBe(201);
    const refund = res.json().data;
    expect(refund).toMatchObject({ amount: 5, status: 'succeeded', provider: 'stripe' });
    expect(refund.provider_refund_id).toMatch(/^re_/);
    const sent = stripe.requests.find((r) => r.path === '/v1/refunds' && r.method === 'POST');
    expect(sent).toMatchObject({
      authorization: `Bearer ${keys.secret_key}`,
      idempotencyKey: refund.id,
      form: {
        payment_intent: intentId,
        amount: '500',
        'metadata[refund_id]': refund.id,
        'metadata[order_id]': order.id,
      },
    });
    expect(stripe.refunds.get(refund.provider_refund_id)?.amount).toBe(500);
    expect(await orderOf(order.id)).toMatchObject({
      payment_status: 'partially_refunded',
      amount_refunded: 5,
    });
  });

  it("charge.refunded records a refund made in Stripe's dashboard once, and never ours twice", async () => {
    const { order, intentId } = await paidStripeOrder();
    const ours = (await api.post(`/api/v1/orders/${order.id}/refunds`, { amount: 4 })).json().data;
    const dashboard = stripe.dashboardRefund(intentId, 300);
    const payload = stripeEvent('charge.refunded', stripe.chargeOf(intentId));
    const first = await deliver(payload);
    expect(first.statusCode).toBe(200);
    expect(first.json().data.outcome).toBe('processed');
    const again = await deliver(payload);
    expect(again.json().data.outcome).toBe('replayed');
    // Another event reporting the same refunds (Stripe sends one per refund) adds nothing either.
    expect((await deliver(stripeEvent('charge.refunded', stripe.chargeOf(intentId)))).statusCode).toBe(200);
    const list = (await api.get(`/api/v1/orders/${order.id}/refunds`)).json().data;
    expect(list).toHaveLength(2);
    expect(list.map((r: { provider_refund_id: string }) => r.provider_refund_id).sort()).toEqual(
      [ours.provider_refund_id, dashboard.id].sort(),
    );
    expect(
      list.find((r: { provider_refund_id: string }) => r.provider_refund_id === dashboard.id),
    ).toMatchObject({
      amount: 3,
      status: 'succeeded',
      provider: 'stripe',
    });
    expect(await orderOf(order.id)).toMatchObject({
      amount_refunded: 7,
      payment_status: 'partially_refunded',
    });
  });

  it('Stripe not answering leaves the refund pending; its report settles it later', async () => {
    const { order, intentId } = await paidStripeOrder();
    stripe.fail({ kind: 'status', status: 500 }, /^\/v1\/refunds$/, 2);
    const res = await api.post(`/api/v1/orders/${order.id}/refunds`, { amount: 20 });
    expect(res.statusCode).toBe(201);
    const refund = res.json().data;
    expect(refund).toMatchObject({ status: 'pending', provider_refund_id: null });
    stripe.heal();
    // Stripe refunded after all (its own retry, say): charge.refunded names our refund id.
    const late = stripe.dashboardRefund(intentId, 2000);
    late.metadata = { refund_id: refund.id };
    expect((await deliver(stripeEvent('charge.refunded', stripe.chargeOf(intentId)))).statusCode).toBe(200);
    const settled = (await api.get(`/api/v1/orders/${order.id}/refunds`)).json().data;
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ id: refund.id, status: 'succeeded', provider_refund_id: late.id });
    expect(await orderOf(order.id)).toMatchObject({ payment_status: 'refunded', amount_refunded: 20 });
  });
});
