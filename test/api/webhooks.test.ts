import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/platform/outbox.js';
import type { BackgroundWorker } from '../../src/worker.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody } from '../helpers/order-factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

let app: TestApp;
let api: Client;
let storeId: string;
let slug: string;
let receiver: WebhookReceiver;
let worker: BackgroundWorker;

beforeAll(async () => {
  app = await buildTestApp({
    config: { ...UNLIMITED, allowPrivateUrls: true, webhookRetrySchedule: [0, 0], webhookTimeoutMs: 2000 },
  });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  slug = store.store.slug;
  api = client(app, store.key);
  receiver = await startWebhookReceiver();
  worker = startTestWorker(app);
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await app.close();
});
beforeEach(() => {
  receiver.respondWith(() => ({ status: 200, body: 'ok' }));
});

async function createWebhook(events: string[], path = '/hook') {
  const res = await api.post('/api/v1/webhooks', { url: `${receiver.url}${path}`, events });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; secret: string; url: string };
}
/** The delivery log once it holds `count` attempts (the worker records attempts just after sending). */
async function logOf(webhookId: string, count: number) {
  for (let i = 0; i < 100; i++) {
    const log = (await api.get(`/api/v1/webhooks/${webhookId}/deliveries?limit=100`)).json().data;
    if (log.length >= count) return log;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the delivery log of ${webhookId} never reached ${count} attempts`);
}
const at = (path: string) => receiver.received.filter((r) => r.path === path);
const bodies = (path: string) => at(path).map((r) => JSON.parse(r.body));

describe('webhook management', () => {
  it('creates with a whsec_ secret shown once; reads, lists, updates, rotates, deletes', async () => {
    const created = await createWebhook(['order.created'], '/crud');
    expect(created.secret).toMatch(/^whsec_/);
    const got = (await api.get(`/api/v1/webhooks/${created.id}`)).json().data;
    expect(got).toMatchObject({ id: created.id, url: created.url, events: ['order.created'], active: true });
    expect(got).not.toHaveProperty('secret');
    expect(Object.keys(got).sort()).toEqual(
      [
        'active',
        'consecutive_failures',
        'created_at',
        'description',
        'disabled_reason',
        'events',
        'id',
        'last_success_at',
        'last_test',
        'updated_at',
        'url',
      ].sort(),
    );
    const list = (await api.get('/api/v1/webhooks')).json();
    expect(list.data.some((w: { id: string }) => w.id === created.id)).toBe(true);
    const patched = await api.patch(`/api/v1/webhooks/${created.id}`, { events: ['*'], description: 'all' });
    expect(patched.json().data).toMatchObject({ events: ['*'], description: 'all' });
    const rotated = (await api.post(`/api/v1/webhooks/${created.id}/rotate-secret`, {})).json().data;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect((await api.del(`/api/v1/webhooks/${created.id}`)).statusCode).toBe(204);
    expect((await api.get(`/api/v1/webhooks/${created.id}`)).statusCode).toBe(404);
  });

  it('refuses unknown events, bad URLs and unknown fields with 400', async () => {
    for (const body of [
      { url: `${receiver.url}/x`, events: ['order.shipped'] },
      { url: `${receiver.url}/x`, events: [] },
      { url: 'ftp://example.com/x', events: ['*'] },
      { url: 'not a url', events: ['*'] },
      { url: 'http://user:pw@127.0.0.1/x', events: ['*'] },
      { url: `${receiver.url}/x`, events: ['*'], secret: 'mine' },
      { events: ['*'] },
    ]) {
      const res = await api.post('/api/v1/webhooks', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
  });

  it('another store cannot see or touch a webhook; scopes are enforced', async () => {
    const hook = await createWebhook(['*'], '/scopes');
    const other = client(app, (await createStoreWithKey(app)).key);
    expect((await other.get(`/api/v1/webhooks/${hook.id}`)).statusCode).toBe(404);
    expect((await other.get(`/api/v1/webhooks/${hook.id}/deliveries`)).statusCode).toBe(404);
    expect((await other.post(`/api/v1/webhooks/${hook.id}/test`, { event: 'order.paid' })).statusCode).toBe(
      404,
    );
    const reader = client(
      app,
      (await app.services.stores.createApiKey(storeId, { scopes: ['webhooks:read'] })).key,
    );
    expect((await reader.get(`/api/v1/webhooks/${hook.id}/deliveries`)).statusCode).toBe(200);
    expect((await reader.post('/api/v1/webhooks', { url: receiver.url, events: ['*'] })).statusCode).toBe(
      403,
    );
    expect((await reader.post(`/api/v1/webhooks/${hook.id}/test`, { event: 'order.paid' })).statusCode).toBe(
      403,
    );
    const none = client(
      app,
      (await app.services.stores.createApiKey(storeId, { scopes: ['orders:read'] })).key,
    );
    expect((await none.get('/api/v1/webhooks')).statusCode).toBe(403);
    await api.del(`/api/v1/webhooks/${hook.id}`);
  });
});

describe('deliveries', () => {
  it('every event of the seed arrives with exactly its data fields, signed both ways', async () => {
    const hook = await createWebhook(['*'], '/all');
    const product = await createProduct(api, {
      price: '10.00',
      inventory: 7,
      name: 'Signed mug',
      low_stock_threshold: 5,
    });
    const shop = client(app);
    const paid = await shop.post(
      `/api/storefront/${slug}/checkout`,
      checkoutBody([{ productId: product.id, quantity: 3 }], {
        paymentMethod: 'test_card',
        cardToken: 'tok_visa',
      }),
    );
    expect(paid.statusCode).toBe(201);
    const order = paid.json().data;
    await api.post(`/api/v1/orders/${order.id}/cancel`, { reason: 'test' });
    await api.patch(`/api/v1/inventory/${product.id}`, { type: 'product', adjustment: -7 });
    await receiver.waitFor(() => at('/all').length >= 6);
    const names = bodies('/all').map((b) => b.event);
    expect(names.sort()).toEqual(
      [
        'order.cancelled',
        'order.created',
        'order.paid',
        'order.updated',
        'product.low_stock',
        'product.out_of_stock',
      ].sort(),
    );
    const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
    const byName = new Map(bodies('/all').map((b) => [b.event, b]));
    for (const body of bodies('/all')) {
      expect(Object.keys(body).sort()).toEqual(['data', 'event', 'timestamp']);
      expect(body.timestamp).toMatch(iso);
    }
    const created = byName.get('order.created').data;
    expect(Object.keys(created).sort()).toEqual(
      ['customerEmail', 'customerName', 'itemCount', 'orderId', 'orderNumber', 'timestamp', 'total'].sort(),
    );
    expect(created).toMatchObject({ orderId: order.id, orderNumber: order.orderNumber, itemCount: 3 });
    expect(typeof created.total).toBe('number');
    expect(created.timestamp).toMatch(iso);
    expect(byName.get('order.paid').data).toMatchObject({
      ...created,
      timestamp: expect.stringMatching(iso),
      paymentMethod: 'test_card',
    });
    expect(Object.keys(byName.get('order.paid').data)).toHaveLength(8);
    expect(byName.get('order.updated').data).toEqual({
      orderId: order.id,
      orderNumber: order.orderNumber,
      changes: expect.objectContaining({ status: { before: 'processing', after: 'cancelled' } }),
      source: 'api',
      timestamp: expect.stringMatching(iso),
    });
    expect(byName.get('order.cancelled').data).toEqual({
      orderId: order.id,
      orderNumber: order.orderNumber,
      customerEmail: order.email,
      customerName: 'Ada Lovelace',
      cancelReason: 'test',
      timestamp: expect.stringMatching(iso),
    });
    // 7 → 4 crosses the threshold of 5 (low stock); back to 7 on cancel; 7 → 0 is out of stock only.
    const stock = {
      productName: 'Signed mug',
      productId: product.id,
      variantId: null,
      sku: null,
      threshold: 5,
    };
    expect(byName.get('product.low_stock').data).toEqual({ ...stock, inventory: 4 });
    expect(byName.get('product.out_of_stock').data).toEqual({ ...stock, inventory: 0 });
    for (const request of at('/all')) {
      const expected = createHmac('sha256', hook.secret).update(request.body).digest('hex');
      expect(request.headers['x-webhook-signature']).toBe(`sha256=${expected}`);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toBe('Emporium-Webhooks/1');
      expect(request.headers['x-webhook-event']).toBe(JSON.parse(request.body).event);
      const id = request.headers['webhook-id'] as string;
      const ts = request.headers['webhook-timestamp'] as string;
      expect(request.headers['x-webhook-id']).toBe(id);
      const key = Buffer.from(hook.secret.slice('whsec_'.length), 'base64');
      const standard = createHmac('sha256', key).update(`${id}.${ts}.${request.body}`).digest('base64');
      expect(request.headers['webhook-signature']).toBe(`v1,${standard}`);
      expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(60);
    }
    // The log holds the exact bytes that were posted.
    const log = await logOf(hook.id, 6);
    const sent = new Set(at('/all').map((r) => r.body));
    expect(log).toHaveLength(6);
    for (const entry of log) {
      expect(sent.has(entry.request_body)).toBe(true);
      expect(entry).toMatchObject({
        status: 'succeeded',
        status_code: 200,
        response_body: 'ok',
        attempt: 1,
        error: null,
      });
      expect(entry.duration_ms).toBeGreaterThanOrEqual(0);
    }
    await api.del(`/api/v1/webhooks/${hook.id}`);
  });

  it('a narrow subscription receives only its events', async () => {
    const hook = await createWebhook(['order.paid'], '/narrow');
    const product = await createProduct(api, { price: '5.00', inventory: 50 });
    const shop = client(app);
    await shop.post(
      `/api/storefront/${slug}/checkout`,
      checkoutBody([{ productId: product.id, quantity: 1 }]),
    );
    await shop.post(
      `/api/storefront/${slug}/checkout`,
      checkoutBody([{ productId: product.id, quantity: 1 }], {
        paymentMethod: 'test_card',
        cardToken: 'tok_visa',
      }),
    );
    await receiver.waitFor(() => at('/narrow').length >= 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(bodies('/narrow').map((b) => b.event)).toEqual(['order.paid']);
    await api.del(`/api/v1/webhooks/${hook.id}`);
  });

  it('an event of a rolled-back transaction is never sent', async () => {
    await createWebhook(['*'], '/rollback');
    await app.database.db
      .transaction()
      .execute(async (tx) => {
        await recordEvent(tx, storeId, 'order.created', { orderId: 'rolled-back' });
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await recordEvent(app.database.db, storeId, 'order.created', { orderId: 'committed' });
    await receiver.waitFor(() => at('/rollback').length >= 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(bodies('/rollback').map((b) => b.data.orderId)).toEqual(['committed']);
  });

  it('500 then 200: retried with the same X-Webhook-Id and body; the log shows both attempts', async () => {
    const hook = await createWebhook(['order.created'], '/flaky');
    let calls = 0;
    receiver.respondWith((r) =>
      r.path === '/flaky' && ++calls === 1 ? { status: 500, body: 'boom' } : { status: 200 },
    );
    await recordEvent(app.database.db, storeId, 'order.created', { orderId: 'flaky' });
    await receiver.waitFor(() => at('/flaky').length >= 2);
    const [first, second] = at('/flaky');
    expect(first?.headers['x-webhook-id']).toBe(second?.headers['x-webhook-id']);
    expect(first?.body).toBe(second?.body);
    const log = await logOf(hook.id, 2);
    expect(
      log.map((e: { attempt: number; status: string; status_code: number }) => [
        e.attempt,
        e.status,
        e.status_code,
      ]),
    ).toEqual([
      [2, 'succeeded', 200],
      [1, 'pending', 500],
    ]);
    expect(log[1].response_body).toBe('boom');
    const pending = (await api.get(`/api/v1/webhooks/${hook.id}/deliveries?status=pending`)).json();
    expect(pending.meta.pagination.total).toBe(1);
    const webhook = (await api.get(`/api/v1/webhooks/${hook.id}`)).json().data;
    expect(webhook).toMatchObject({ consecutive_failures: 0, active: true });
    expect(webhook.last_success_at).not.toBeNull();
    await api.del(`/api/v1/webhooks/${hook.id}`);
  });

  it('400 is not retried; a manual retry sends it again with the same id', async () => {
    const hook = await createWebhook(['order.created'], '/reject');
    receiver.respondWith((r) => (r.path === '/reject' ? { status: 400, body: 'no' } : { status: 200 }));
    await recordEvent(app.database.db, storeId, 'order.created', { orderId: 'rejected' });
    // The attempt logged as failed with no next try: the delivery is over, nothing more is sent.
    const [entry] = await logOf(hook.id, 1);
    expect(entry).toMatchObject({ status: 'failed', status_code: 400, next_retry_at: null });
    expect(at('/reject')).toHaveLength(1);
    receiver.respondWith(() => ({ status: 200 }));
    const retried = await api.post(`/api/v1/webhooks/${hook.id}/deliveries/${entry.delivery_id}/retry`, {});
    expect(retried.statusCode).toBe(200);
    expect(retried.json().data).toMatchObject({
      delivery_id: entry.delivery_id,
      attempt: 2,
      status: 'succeeded',
    });
    expect(at('/reject')[1]?.headers['x-webhook-id']).toBe(entry.delivery_id);
    expect((await api.post(`/api/v1/webhooks/${hook.id}/deliveries/nope/retry`, {})).statusCode).toBe(404);
    await api.del(`/api/v1/webhooks/${hook.id}`);
  });

  it('410 Gone disables the webhook at once', async () => {
    const hook = await createWebhook(['order.created'], '/gone');
    receiver.respondWith((r) => (r.path === '/gone' ? { status: 410 } : { status: 200 }));
    await recordEvent(app.database.db, storeId, 'order.created', { orderId: 'gone' });
    await expect
      .poll(async () => (await api.get(`/api/v1/webhooks/${hook.id}`)).json().data)
      .toMatchObject({ active: false, disabled_reason: 'the endpoint answered 410 Gone' });
    await recordEvent(app.database.db, storeId, 'order.created', { orderId: 'after' });
    await new Promise((r) => setTimeout(r, 500));
    expect(at('/gone')).toHaveLength(1);
    const enabled = await api.patch(`/api/v1/webhooks/${hook.id}`, { active: true });
    expect(enabled.json().data).toMatchObject({ active: true, disabled_reason: null });
    await api.del(`/api/v1/webhooks/${hook.id}`);
  });

  it('retries run out: the delivery fails after the schedule', async () => {
    const hook = await createWebhook(['order.created'], '/down');
    receiver.respondWith((r) => (r.path === '/down' ? { status: 503 } : { status: 200 }));
    await recordEvent(app.database.db, storeId, 'order.created', { orderId: 'down' });
    // The third attempt logged as failed ends the schedule: nothing more is sent.
    const log = await logOf(hook.id, 3);
    expect(log.map((e: { status: string }) => e.status)).toEqual(['failed', 'pending', 'pending']);
    expect(at('/down')).toHaveLength(3);
    expect((await api.get(`/api/v1/webhooks/${hook.id}`)).json().data.consecutive_failures).toBe(3);
    await api.del(`/api/v1/webhooks/${hook.id}`);
  });
});

describe('test sends', () => {
  it('POST /webhooks/{id}/test sends sample data with test markers, signed, and logs it', async () => {
    const hook = await createWebhook(['order.paid', 'product.low_stock'], '/test-send');
    const res = await api.post(`/api/v1/webhooks/${hook.id}/test`, { event: 'order.paid' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      event_type: 'order.paid',
      status: 'succeeded',
      status_code: 200,
      attempt: 1,
    });
    const [request] = at('/test-send');
    expect(request?.headers['x-webhook-test']).toBe('true');
    expect(request?.headers['x-webhook-event']).toBe('order.paid');
    const body = JSON.parse(request?.body ?? '');
    expect(body).toMatchObject({ event: 'order.paid', test: true });
    expect(Object.keys(body.data).sort()).toEqual(
      [
        'couponCode',
        'customerEmail',
        'customerName',
        'itemCount',
        'orderId',
        'orderNumber',
        'paymentMethod',
        'timestamp',
        'total',
      ].sort(),
    );
    expect(request?.headers['x-webhook-signature']).toBe(
      `sha256=${createHmac('sha256', hook.secret)
        .update(request?.body ?? '')
        .digest('hex')}`,
    );
    expect(res.json().data.request_body).toBe(request?.body);
    const unsubscribed = await api.post(`/api/v1/webhooks/${hook.id}/test`, { event: 'order.created' });
    expect(unsubscribed.statusCode).toBe(400);
    expect((await api.post(`/api/v1/webhooks/${hook.id}/test`, { event: 'nope' })).statusCode).toBe(400);
    // A stock event's sample has the real event's fields (inventory.test.ts checks those).
    const stock = await api.post(`/api/v1/webhooks/${hook.id}/test`, { event: 'product.low_stock' });
    expect(Object.keys(JSON.parse(stock.json().data.request_body).data).sort()).toEqual(
      ['productName', 'inventory', 'productId', 'variantId', 'sku', 'threshold'].sort(),
    );
    receiver.respondWith(() => ({ status: 500 }));
    const failing = await api.post(`/api/v1/webhooks/${hook.id}/test`, { event: 'product.low_stock' });
    expect(failing.json().data).toMatchObject({ status: 'failed', status_code: 500 });
    await new Promise((r) => setTimeout(r, 300));
    expect(at('/test-send')).toHaveLength(3);
    await api.del(`/api/v1/webhooks/${hook.id}`);
  });
});

describe('auto-disable', () => {
  it('a webhook failing for WEBHOOK_DISABLE_AFTER_HOURS is disabled', async () => {
    const hook = await createWebhook(['order.created'], '/stale');
    receiver.respondWith((r) => (r.path === '/stale' ? { status: 400 } : { status: 200 }));
    await app.database.db
      .updateTable('webhooks')
      .set({ failing_since: new Date(Date.now() - 200 * 3600_000), consecutive_failures: 40 })
      .where('id', '=', hook.id)
      .execute();
    await recordEvent(app.database.db, storeId, 'order.created', { orderId: 'stale' });
    await expect
      .poll(async () => (await api.get(`/api/v1/webhooks/${hook.id}`)).json().data)
      .toMatchObject({
        active: false,
        disabled_reason: expect.stringMatching(/no successful delivery for 120 hours/),
      });
  });
});

describe('the last test send (issue 30, item 10)', () => {
  it('is shown as last_test, apart from last_success_at, which counts real deliveries only', async () => {
    const hook = await createWebhook(['order.paid'], '/last-test');
    const fresh = (await api.get(`/api/v1/webhooks/${hook.id}`)).json().data;
    expect(fresh).toMatchObject({ last_success_at: null, last_test: null });

    expect((await api.post(`/api/v1/webhooks/${hook.id}/test`, { event: 'order.paid' })).statusCode).toBe(
      200,
    );
    const tested = (await api.get(`/api/v1/webhooks/${hook.id}`)).json().data;
    expect(tested.last_success_at).toBeNull();
    expect(tested.last_test).toMatchObject({ succeeded: true, status_code: 200 });
    expect(Math.abs(Date.parse(tested.last_test.at) - Date.now())).toBeLessThan(60_000);

    receiver.respondWith(() => ({ status: 503 }));
    await api.post(`/api/v1/webhooks/${hook.id}/test`, { event: 'order.paid' });
    const listed = (await api.get('/api/v1/webhooks'))
      .json()
      .data.find((w: { id: string }) => w.id === hook.id);
    expect(listed).toMatchObject({
      last_success_at: null,
      last_test: { succeeded: false, status_code: 503 },
    });
    await api.del(`/api/v1/webhooks/${hook.id}`);
  });
});
