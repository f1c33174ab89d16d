import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderRefundRequest, RefundGateway } from '../../src/modules/orders/index.js';
import { newId } from '../../src/platform/ids.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
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

/**
 * Refunds through a provider's gateway (the RefundGateway port the payments module implements for
 * Stripe): written pending in the order's transaction, the provider called after commit with the
 * refund id as idempotency key, settled in a second transaction. The provider here is a real local
 * HTTP server, reached by a small gateway over fetch; orders paid `stripe` go through it. Also the
 * concurrency bound, and recordProviderRefunds (the provider's own reports).
 */

type Answer = { status: number; body?: Record<string, unknown> };
interface ProviderCall {
  idempotencyKey: string;
  body: { amount: number; currency: string; refund_id: string; order_id: string };
}

/** A provider that refunds: answers each idempotency key once, the same way every time. */
async function startProvider() {
  const calls: ProviderCall[] = [];
  const answered = new Map<string, Answer>();
  let decide: (call: ProviderCall) => Answer = () => ({ status: 200, body: { status: 'succeeded' } });
  let delayMs = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c.toString();
    });
    req.on('end', async () => {
      const call: ProviderCall = {
        idempotencyKey: String(req.headers['idempotency-key']),
        body: JSON.parse(raw),
      };
      calls.push(call);
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      const answer = answered.get(call.idempotencyKey) ?? decide(call);
      answered.set(call.idempotencyKey, answer);
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: `re_${call.idempotencyKey.slice(-12)}`, ...answer.body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    answerWith(next: (call: ProviderCall) => Answer) {
      decide = next;
    },
    delay(ms: number) {
      delayMs = ms;
    },
    reset() {
      calls.length = 0;
      decide = () => ({ status: 200, body: { status: 'succeeded' } });
      delayMs = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The gateway the payments module would give for Stripe, over the local provider. */
function providerGateway(url: string): RefundGateway {
  return {
    handles: (method) => method === 'stripe',
    async refund(request: ProviderRefundRequest) {
      const res = await fetch(`${url}/refunds`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': request.refundId },
        body: JSON.stringify({
          amount: request.amount,
          currency: request.currency,
          refund_id: request.refundId,
          order_id: request.orderId,
        }),
      });
      if (res.status >= 500) throw new Error(`provider answered ${res.status}`);
      const body = (await res.json()) as {
        id: string;
        status: 'succeeded' | 'pending' | 'failed';
        error?: string;
      };
      return { status: body.status, providerRefundId: body.id, error: body.error };
    },
  };
}

let app: TestApp;
let api: Client;
let storeId: string;
let product: ProductData;
let provider: Awaited<ReturnType<typeof startProvider>>;

beforeAll(async () => {
  provider = await startProvider();
  app = await buildTestApp({ config: UNLIMITED, refundGateways: [providerGateway(provider.url)] });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  api = client(app, store.key);
  await setPricing(app, storeId, { shipping_flat_rate: 0, tax_rate_bps: 0 });
  product = await createProduct(api, { price: '25.00', inventory: 10_000, name: 'Lamp' });
});
afterAll(async () => {
  await app.close();
  await provider.close();
});
beforeEach(() => provider.reset());

/** 4 lamps = 100.00, paid in full with `stripe` (or another method). */
const paidOrder = (paymentMethod = 'stripe') =>
  createOrder(api, {
    items: [{ product_id: product.id, quantity: 4 }],
    mark_paid: true,
    payment_method: paymentMethod,
  });
const refund = (orderId: string, body: unknown) => api.post(`/api/v1/orders/${orderId}/refunds`, body);
const getOrder = async (id: string) => (await api.get(`/api/v1/orders/${id}`)).json().data;
const stock = async () => (await api.get(`/api/v1/inventory/${product.id}`)).json().data.inventory;
const refundedEvents = async (orderId: string) =>
  (await eventsOf(app.database.db, storeId)).filter(
    (e) => e.name === 'order.refunded' && (e.data as { orderId: string }).orderId === orderId,
  );

describe('a provider refund', () => {
  it('calls the provider once with the refund id as idempotency key, then records it succeeded', async () => {
    const order = await paidOrder();
    const before = await stock();
    const res = await refund(order.id, {
      amount: '30.00',
      reason: 'broken',
      restock: [{ line_item_id: order.line_items[0].id, quantity: 1 }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const made = res.json().data;
    expect(made).toMatchObject({ status: 'succeeded', provider: 'stripe', amount: 30, reason: 'broken' });
    expect(provider.calls).toHaveLength(1);
    expect(provider.calls[0]).toEqual({
      idempotencyKey: made.id,
      body: { amount: 3000, currency: 'USD', refund_id: made.id, order_id: order.id },
    });
    expect(made.provider_refund_id).toBe(`re_${made.id.slice(-12)}`);
    expect(await stock()).toBe(before + 1);
    expect(await getOrder(order.id)).toMatchObject({
      amount_refunded: 30,
      payment_status: 'partially_refunded',
    });
    expect(await refundedEvents(order.id)).toHaveLength(1);
  });

  it('holds no lock on the order while the provider answers', async () => {
    const order = await paidOrder();
    provider.delay(800);
    const pending = refund(order.id, { amount: 10 });
    while (provider.calls.length === 0) await new Promise((r) => setTimeout(r, 10));
    // The refund row is committed (pending) and the order can be written meanwhile.
    const started = Date.now();
    const patched = await api.patch(`/api/v1/orders/${order.id}`, { notes: 'called the buyer' });
    expect(patched.statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(500);
    const listed = (await api.get(`/api/v1/orders/${order.id}/refunds`)).json().data;
    expect(listed).toMatchObject([{ status: 'pending', amount: 10 }]);
    expect((await pending).json().data.status).toBe('succeeded');
  });

  it('a refused refund is failed: its amount and units are released, nothing restocked', async () => {
    const order = await paidOrder();
    const before = await stock();
    provider.answerWith(() => ({
      status: 200,
      body: { status: 'failed', error: 'charge already disputed' },
    }));
    const res = await refund(order.id, {
      amount: 100,
      restock: [{ line_item_id: order.line_items[0].id, quantity: 4 }],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', failure_reason: 'charge already disputed' });
    expect(await stock()).toBe(before);
    expect(await getOrder(order.id)).toMatchObject({ amount_refunded: 0, payment_status: 'paid' });
    expect(await refundedEvents(order.id)).toHaveLength(0);
    provider.reset();
    const again = await refund(order.id, {
      amount: 100,
      restock: [{ line_item_id: order.line_items[0].id, quantity: 4 }],
    });
    expect(again.json().data.status).toBe('succeeded');
    expect(await stock()).toBe(before + 4);
    expect(await getOrder(order.id)).toMatchObject({ amount_refunded: 100, payment_status: 'refunded' });
  });

  it('no answer (provider 500) leaves it pending, its amount reserved, until the provider reports it', async () => {
    const order = await paidOrder();
    const before = await stock();
    provider.answerWith(() => ({ status: 500 }));
    const res = await refund(order.id, {
      amount: 60,
      restock: [{ line_item_id: order.line_items[0].id, quantity: 2 }],
    });
    expect(res.statusCode).toBe(201);
    const made = res.json().data;
    expect(made).toMatchObject({ status: 'pending', provider_refund_id: null });
    expect(await getOrder(order.id)).toMatchObject({ amount_refunded: 0, payment_status: 'paid' });
    // Reserved: only 40.00 is left to refund, and 2 units to restock.
    expect((await refund(order.id, { amount: '40.01' })).statusCode).toBe(400);
    const units = await refund(order.id, {
      amount: 1,
      restock: [{ line_item_id: order.line_items[0].id, quantity: 3 }],
    });
    expect(units.statusCode).toBe(400);
    expect(await stock()).toBe(before);

    // The provider's webhook reports it (by our id): settled succeeded, restocked, counted once.
    const report = [{ providerRefundId: 're_late_1', amount: 6000, reason: null, emporiumRefundId: made.id }];
    const settled = await app.services.orders.recordProviderRefunds(storeId, order.id, report);
    expect(settled.recorded.map((r) => r.id)).toEqual([made.id]);
    expect(await stock()).toBe(before + 2);
    expect(await getOrder(order.id)).toMatchObject({
      amount_refunded: 60,
      payment_status: 'partially_refunded',
    });
    const listed = (await api.get(`/api/v1/orders/${order.id}/refunds`)).json().data;
    expect(listed).toMatchObject([{ id: made.id, status: 'succeeded', provider_refund_id: 're_late_1' }]);
    const twice = await app.services.orders.recordProviderRefunds(storeId, order.id, report);
    expect(twice.recorded).toEqual([]);
    expect(await getOrder(order.id)).toMatchObject({ amount_refunded: 60 });
    expect(await refundedEvents(order.id)).toHaveLength(1);
  });

  it('a provider that answers pending keeps it pending with the provider id; the report settles it', async () => {
    const order = await paidOrder();
    provider.answerWith(() => ({ status: 200, body: { status: 'pending' } }));
    const made = (await refund(order.id, { amount: 25 })).json().data;
    expect(made).toMatchObject({ status: 'pending', provider_refund_id: `re_${made.id.slice(-12)}` });
    // Reported by the provider's id only (no metadata).
    const report = [{ providerRefundId: made.provider_refund_id, amount: 2500, reason: null }];
    const settled = await app.services.orders.recordProviderRefunds(storeId, order.id, report);
    expect(settled.recorded).toHaveLength(1);
    expect(settled.order.order.amount_refunded).toBe(2500);
    expect((await api.get(`/api/v1/orders/${order.id}/refunds`)).json().data).toHaveLength(1);
  });
});

describe('recordProviderRefunds', () => {
  it('records refunds made at the provider once, whoever reports them and however often', async () => {
    const order = await paidOrder();
    const ours = (await refund(order.id, { amount: 10 })).json().data;
    const report = [
      // Ours, echoed back by charge.refunded: already counted.
      { providerRefundId: ours.provider_refund_id, amount: 1000, reason: null, emporiumRefundId: ours.id },
      // Made in the provider's dashboard: new to us.
      { providerRefundId: 're_dashboard_1', amount: 1500, reason: 'requested_by_customer' },
    ];
    const results = await Promise.all(
      Array.from({ length: 5 }, () => app.services.orders.recordProviderRefunds(storeId, order.id, report)),
    );
    expect(results.flatMap((r) => r.recorded)).toHaveLength(1);
    const listed = (await api.get(`/api/v1/orders/${order.id}/refunds`)).json().data;
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatchObject({
      amount: 15,
      status: 'succeeded',
      provider: 'stripe',
      provider_refund_id: 're_dashboard_1',
      reason: 'requested_by_customer',
      restocked: [],
    });
    expect(await getOrder(order.id)).toMatchObject({
      amount_refunded: 25,
      payment_status: 'partially_refunded',
    });
    expect(await refundedEvents(order.id)).toHaveLength(2);
    const events = await eventsOf(app.database.db, storeId);
    const updated = events.filter(
      (e) => e.name === 'order.updated' && (e.data as { orderId: string }).orderId === order.id,
    );
    expect(updated.at(-1)?.data).toMatchObject({ source: 'system' });
  });

  it('404 for an unknown order or one of another store', async () => {
    const otherStore = await createStoreWithKey(app);
    const order = await paidOrder();
    const report = [{ providerRefundId: 're_x', amount: 100, reason: null }];
    await expect(
      app.services.orders.recordProviderRefunds(otherStore.store.id, order.id, report),
    ).rejects.toMatchObject({ statusCode: 404 });
    await expect(app.services.orders.recordProviderRefunds(storeId, newId(), report)).rejects.toMatchObject({
      statusCode: 404,
    });
  });
});

describe('concurrent refunds never exceed what was paid', () => {
  for (const method of ['stripe', 'manual']) {
    it(`10 parallel refunds of 40% of a ${method} order: exactly 2 succeed`, async () => {
      const order = await paidOrder(method);
      if (method === 'stripe') provider.delay(50);
      const answers = await Promise.all(Array.from({ length: 10 }, () => refund(order.id, { amount: 40 })));
      const codes = answers.map((a) => a.statusCode).sort();
      expect(codes).toEqual([201, 201, 400, 400, 400, 400, 400, 400, 400, 400]);
      expect(answers.filter((a) => a.statusCode === 201).map((a) => a.json().data.status)).toEqual([
        'succeeded',
        'succeeded',
      ]);
      expect(await getOrder(order.id)).toMatchObject({
        amount_refunded: 80,
        payment_status: 'partially_refunded',
      });
      expect(provider.calls).toHaveLength(method === 'stripe' ? 2 : 0);
      expect(await refundedEvents(order.id)).toHaveLength(2);
    });
  }

  it('parallel restocks never return more units than were bought', async () => {
    const order = await paidOrder('manual');
    const before = await stock();
    const line = order.line_items[0].id;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        refund(order.id, { amount: 1, restock: [{ line_item_id: line, quantity: 1 }] }),
      ),
    );
    expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(4);
    expect(await stock()).toBe(before + 4);
  });
});
