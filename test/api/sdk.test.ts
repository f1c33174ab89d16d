import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEmporiumClient,
  type EmporiumClient,
  EmporiumError,
  verifyWebhook,
  WebhookVerificationError,
} from '../../packages/sdk/src/index.js';
import type { BackgroundWorker } from '../../src/worker.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/catalog-factories.js';
import { createCustomers, createStoreWithKey } from '../helpers/factories.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * The SDK (packages/sdk) against a real server on a real port: its typed calls, list walks, errors,
 * Idempotency-Key, 429 retries and webhook verification, over HTTP as an integration would use them.
 */
let app: TestApp;
let baseUrl: string;
let sdk: EmporiumClient;
let slug: string;
let storeId: string;
let smtp: SmtpCatcher;
let receiver: WebhookReceiver;
let worker: BackgroundWorker;
const sent: Request[] = [];

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  receiver = await startWebhookReceiver();
  app = await buildTestApp({
    config: { ...UNLIMITED, allowPrivateUrls: true, smtpUrl: smtp.url, webhookRetrySchedule: [0] },
  });
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`;
  const store = await createStoreWithKey(app);
  slug = store.store.slug;
  storeId = store.store.id;
  sdk = createEmporiumClient({
    baseUrl,
    apiKey: store.key,
    fetch: (request) => {
      sent.push(request.clone());
      return fetch(request);
    },
  });
  worker = startTestWorker(app);
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await smtp.close();
  await app.close();
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

let productId: string;

describe('typed calls and list walks', () => {
  beforeAll(async () => {
    for (let i = 0; i < 7; i++) {
      const created = await sdk.post('/api/v1/products', {
        body: { name: `Walked ${i}`, price: '4.50', inventory: 500, status: 'active' },
      });
      productId = created.data.id;
    }
    for (let i = 0; i < 6; i++)
      await sdk.post('/api/v1/orders', {
        body: {
          customer: { email: `walker${i % 3}@example.com` },
          items: [{ product_id: productId, quantity: 1 }],
        },
      });
    await createCustomers(app, storeId, 9);
    for (let i = 0; i < 5; i++) await sdk.post('/api/v1/categories', { body: { name: `Category ${i}` } });
    for (let i = 0; i < 4; i++)
      await sdk.post('/api/v1/discounts', { body: { code: `SAVE${i}`, type: 'percentage', value: '5' } });
  });

  it('walks the cursor lists (orders, products, customers) to the end, each item once', async () => {
    const orders = await collect(sdk.paginate('/api/v1/orders', { params: { query: { limit: 4 } } }));
    expect(orders.map((o) => o.order_number)).toEqual(['1006', '1005', '1004', '1003', '1002', '1001']);
    const products = await collect(sdk.paginate('/api/v1/products', { params: { query: { limit: 2 } } }));
    expect(products).toHaveLength(7);
    expect(new Set(products.map((p) => p.id)).size).toBe(7);
    const customers = await collect(sdk.paginate('/api/v1/customers', { params: { query: { limit: 5 } } }));
    expect(customers).toHaveLength(9 + 3);
    const cursors = sent.filter((r) => r.url.includes('/api/v1/orders?') && r.url.includes('cursor='));
    expect(cursors.length).toBe(1);
    const pages = await collect(sdk.pages('/api/v1/customers', { params: { query: { limit: 5 } } }));
    expect(pages.map((p) => p.meta.pagination.page)).toEqual([1, 2, 3]);
    expect(pages.at(-1)?.meta.pagination.next_cursor).toBeNull();
  });

  it("walks page-numbered lists to the end (categories, discounts, storefront products, a customer's orders)", async () => {
    const categories = await collect(sdk.paginate('/api/v1/categories', { params: { query: { limit: 2 } } }));
    expect(categories).toHaveLength(5);
    expect(sent.some((r) => r.url.includes('/api/v1/categories?') && r.url.includes('page=3'))).toBe(true);
    const discounts = await collect(sdk.paginate('/api/v1/discounts', { params: { query: { limit: 3 } } }));
    expect(discounts.map((d) => d.code).sort()).toEqual(['SAVE0', 'SAVE1', 'SAVE2', 'SAVE3']);
    const shop = createEmporiumClient({ baseUrl });
    const listed = await collect(
      shop.paginate('/api/storefront/{slug}/products', { params: { path: { slug }, query: { limit: 3 } } }),
    );
    expect(listed).toHaveLength(7);

    // A customer signs in (e-mailed code) and walks their own orders with the Bearer session.
    await shop.post('/api/storefront/{slug}/auth/request-code', {
      params: { path: { slug } },
      body: { email: 'walker1@example.com' },
    });
    const mail = await smtp.waitFor((m) => m.envelope.to.includes('walker1@example.com'));
    const code = /\b(\d{6})\b/.exec(mail.text)?.[1] ?? '';
    const verified = await shop.post('/api/storefront/{slug}/auth/verify', {
      params: { path: { slug } },
      body: { email: 'walker1@example.com', code },
    });
    shop.setSessionToken(verified.data.token);
    const mine = await collect(shop.paginate('/api/customer/orders', { params: { query: { limit: 1 } } }));
    expect(mine.map((o) => o.orderNumber).sort()).toEqual(['1002', '1005']);
    expect((await shop.get('/api/customer/me')).data.email).toBe('walker1@example.com');
  });
});

describe('errors', () => {
  it('throws EmporiumError with the status, code, message, details and request id', async () => {
    const missing = await sdk
      .get('/api/v1/orders/{id}', { params: { path: { id: '0191d3f4-0000-7000-8000-000000000000' } } })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(EmporiumError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found', message: 'order not found' });
    expect((missing as EmporiumError).requestId).toEqual(expect.any(String));

    const invalid = await sdk
      .post('/api/v1/products', { body: { name: '', price: 'abc' } })
      .catch((error: unknown) => error as EmporiumError);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request' });
    expect((invalid as EmporiumError).details.map((d) => d.field)).toContain('name');

    const anonymous = createEmporiumClient({ baseUrl });
    await expect(anonymous.get('/api/v1/orders')).rejects.toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
    const tampered = await sdk
      .get('/api/v1/orders', { params: { query: { cursor: 'x.y' } } })
      .catch((error: unknown) => error);
    expect(tampered).toMatchObject({ status: 400, code: 'invalid_request', details: [{ field: 'cursor' }] });
  });

  it('sends an Idempotency-Key on creates (the same on a replay), or the one given', async () => {
    const before = sent.length;
    const body = { name: 'Once', price: '1.00' };
    const first = await sdk.post('/api/v1/products', { body, headers: { 'Idempotency-Key': 'sdk-once' } });
    const again = await sdk.post('/api/v1/products', { body, headers: { 'Idempotency-Key': 'sdk-once' } });
    expect(again.data.id).toBe(first.data.id);
    await sdk.post('/api/v1/products', { body: { name: 'Auto', price: '1.00' } });
    await sdk.patch('/api/v1/products/{id}', {
      params: { path: { id: first.data.id } },
      body: { name: 'Twice' },
    });
    const keys = sent.slice(before).map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toBe('sdk-once');
    expect(keys[1]).toBe('sdk-once');
    expect(keys[2]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[3]).toBeNull();
  });
});

describe('webhook verification', () => {
  it('accepts a real delivery by either signature, refuses a tampered one and a stale timestamp', async () => {
    const hook = await sdk.post('/api/v1/webhooks', {
      body: { url: `${receiver.url}/sdk`, events: ['order.created'] },
    });
    const secret = hook.data.secret;
    const order = await sdk.post('/api/v1/orders', {
      body: {
        customer: { email: 'hooked@example.com' },
        items: [{ product_id: productId, quantity: 1 }],
      },
    });
    await receiver.waitFor(() => receiver.received.some((r) => r.path === '/sdk'));
    const delivery = receiver.received.find((r) => r.path === '/sdk');
    if (!delivery) throw new Error('no delivery');

    const verified = await verifyWebhook<{ orderId: string }>(delivery.body, delivery.headers, secret);
    expect(verified).toMatchObject({ event: 'order.created', scheme: 'standard-webhooks', test: false });
    expect(verified.id).toBe(delivery.headers['webhook-id']);
    expect(verified.payload.data.orderId).toBe(order.data.id);
    // A fetch Headers object (a Request in a worker, a browser) and raw bytes work the same.
    const asHeaders = new Headers(delivery.headers as Record<string, string>);
    await expect(
      verifyWebhook(new TextEncoder().encode(delivery.body), asHeaders, secret),
    ).resolves.toMatchObject({
      event: 'order.created',
    });
    // The seed's X-Webhook-Signature alone (no Standard Webhooks headers).
    const {
      'webhook-signature': _s,
      'webhook-timestamp': _t,
      'webhook-id': _i,
      ...seedOnly
    } = delivery.headers;
    await expect(verifyWebhook(delivery.body, seedOnly, secret)).resolves.toMatchObject({
      scheme: 'x-webhook-signature',
    });

    const refusals: [string, () => Promise<unknown>][] = [
      [
        'tampered body',
        () => verifyWebhook(delivery.body.replace('hooked', 'hacked'), delivery.headers, secret),
      ],
      [
        'tampered body, seed header',
        () => verifyWebhook(delivery.body.replace('hooked', 'hacked'), seedOnly, secret),
      ],
      [
        'wrong secret',
        () =>
          verifyWebhook(delivery.body, delivery.headers, `whsec_${btoa('another secret of 32 bytes......')}`),
      ],
      [
        'stale timestamp',
        () =>
          verifyWebhook(delivery.body, delivery.headers, secret, { now: new Date(Date.now() + 10 * 60_000) }),
      ],
      [
        'timestamp moved',
        () =>
          verifyWebhook(
            delivery.body,
            { ...delivery.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) + 1) },
            secret,
          ),
      ],
      ['no signature', () => verifyWebhook(delivery.body, { 'webhook-id': 'x' }, secret)],
    ];
    for (const [what, attempt] of refusals)
      await expect(attempt(), what).rejects.toBeInstanceOf(WebhookVerificationError);
    // A tight tolerance refuses what a loose one accepts.
    await expect(
      verifyWebhook(delivery.body, delivery.headers, secret, {
        toleranceSeconds: 1,
        now: new Date(Number(delivery.headers['webhook-timestamp']) * 1000 + 5000),
      }),
    ).rejects.toThrow(/tolerance/);
  });
});

describe('429', () => {
  let limited: TestApp;
  let limitedUrl: string;
  let key: string;
  beforeAll(async () => {
    limited = await buildTestApp({ config: { rateLimitPerMinute: 2 } });
    await limited.server.listen({ port: 0, host: '127.0.0.1' });
    limitedUrl = `http://127.0.0.1:${(limited.server.server.address() as AddressInfo).port}`;
    key = (await createStoreWithKey(limited)).key;
  });
  afterAll(() => limited.close());

  it('is thrown at once with retry: false, and retried after Retry-After by default', async () => {
    let attempts = 0;
    const counting = (request: Request) => {
      attempts++;
      return fetch(request);
    };
    const noRetry = createEmporiumClient({ baseUrl: limitedUrl, apiKey: key, retry: false, fetch: counting });
    await noRetry.get('/api/v1/orders');
    await noRetry.get('/api/v1/orders');
    const refused = await noRetry.get('/api/v1/orders').catch((error: unknown) => error as EmporiumError);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    expect((refused as EmporiumError).retryAfterSeconds).toBeGreaterThan(0);
    expect(attempts).toBe(3);

    // The window is a clock minute: the retry waits for its end (Retry-After), then succeeds.
    const retrying = createEmporiumClient({
      baseUrl: limitedUrl,
      apiKey: key,
      fetch: counting,
      retry: { maxWaitSeconds: 61 },
    });
    const started = Date.now();
    const page = await retrying.post('/api/v1/products', { body: { name: 'After the wait', price: '1.00' } });
    expect(page.data.name).toBe('After the wait');
    expect(attempts).toBe(5);
    expect(Date.now() - started).toBeGreaterThanOrEqual(
      ((refused as EmporiumError).retryAfterSeconds ?? 1) * 1000 - 2000,
    );
  }, 90_000);
});
