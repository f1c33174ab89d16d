import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueNotification } from '../../src/modules/notifications/index.js';
import { newId } from '../../src/platform/ids.js';
import { recordEvent } from '../../src/platform/outbox.js';
import type { BackgroundWorker } from '../../src/worker.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Contract §14: a suspended store's shop shows a "closed" page (503), its storefront, cart, checkout,
 * customer and mobile APIs answer 503 `unavailable`, its API keys and dashboard sessions 403
 * `forbidden` saying why, its webhooks and e-mails wait; nothing is deleted, and unsuspending
 * restores every one of them.
 */

const PUBLIC_URL = 'https://emporium.example.com';
const PASSWORD = 'correct horse battery';
const DOMAIN = 'shop.closed-store.example';
const REASON = 'Unpaid invoices';
const OPERATOR = { by: { operatorEmail: 'ops@example.com' } };

let app: TestApp;
let smtp: SmtpCatcher;
let receiver: WebhookReceiver;
let worker: BackgroundWorker;
let store: { id: string; slug: string };
let other: { id: string; slug: string };
let api: Client;
let otherApi: Client;
let adminCookie: string;
let customerToken: string;
let productSlug: string;
let productId: string;
let webhookId: string;

async function signInAdmin(slug: string): Promise<string> {
  const email = `owner.${slug}@example.com`;
  await app.services.stores.createAdminUser({ email, password: PASSWORD, storeSlug: slug });
  const res = await app.server.inject({
    method: 'POST',
    url: '/api/admin/auth/login',
    payload: { email, password: PASSWORD },
  });
  expect(res.statusCode, res.body).toBe(200);
  return String(res.headers['set-cookie']).split(';')[0] as string;
}

async function signInCustomer(slug: string): Promise<string> {
  const email = `shopper.${slug}@example.com`;
  const url = `/api/storefront/${slug}/auth`;
  const requested = await app.server.inject({
    method: 'POST',
    url: `${url}/request-code`,
    payload: { email },
  });
  expect(requested.statusCode, requested.body).toBe(202);
  const mail = await smtp.waitFor((m) => (m.to ?? '').includes(email));
  const code = mail.text.match(/\b(\d{6})\b/)?.[1] as string;
  const verified = await app.server.inject({
    method: 'POST',
    url: `${url}/verify`,
    payload: { email, code },
  });
  expect(verified.statusCode, verified.body).toBe(200);
  return verified.json().data.token;
}

/** One request per surface of the store: [name, answer]. */
async function surfaces(slug: string) {
  const inject = (
    name: string,
    options: { method?: 'GET' | 'POST'; url: string; headers?: Record<string, string>; payload?: object },
  ) =>
    app.server.inject({ method: options.method ?? 'GET', ...options }).then((res) => ({
      name,
      status: res.statusCode,
      body: res.body,
      json: () => res.json() as { error: { code: string } },
    }));
  const bearer = { authorization: `Bearer ${customerToken}` };
  return Promise.all([
    inject('storefront config', { url: `/api/storefront/${slug}/config` }),
    inject('storefront products', { url: `/api/storefront/${slug}/products` }),
    inject('storefront product', { url: `/api/storefront/${slug}/products/${productSlug}` }),
    inject('new cart', { method: 'POST', url: `/api/storefront/${slug}/carts`, payload: {} }),
    inject('checkout quote', {
      method: 'POST',
      url: `/api/storefront/${slug}/checkout/quote`,
      payload: { items: [{ product_id: newId(), quantity: 1 }] },
    }),
    inject('back in stock', {
      method: 'POST',
      url: `/api/storefront/${slug}/products/${productSlug}/notify-me`,
      payload: { email: 'waiting@example.com' },
    }),
    inject('customer code', {
      method: 'POST',
      url: `/api/storefront/${slug}/auth/request-code`,
      payload: { email: 'someone@example.com' },
    }),
    inject('customer me', { url: '/api/customer/me', headers: bearer }),
    inject('mobile preferences', { url: '/api/mobile/notifications/preferences', headers: bearer }),
  ]);
}

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  app = await buildTestApp({
    config: {
      ...UNLIMITED,
      smtpUrl: smtp.url,
      publicUrl: PUBLIC_URL,
      allowPrivateUrls: true,
      webhookRetrySchedule: [0, 0],
      webhookTimeoutMs: 2000,
    },
  });
  const created = await createStoreWithKey(app);
  store = created.store;
  api = client(app, created.key);
  const second = await createStoreWithKey(app);
  other = second.store;
  otherApi = client(app, second.key);
  await app.services.stores.updateSettings(store.id, { custom_domain: DOMAIN });
  const product = await createProduct(api, { name: 'Blue Mug', price: '12.50', inventory: 5 });
  productSlug = product.slug;
  productId = product.id;
  await createProduct(otherApi, { name: 'Red Mug', price: '9.00', inventory: 5 });
  adminCookie = await signInAdmin(store.slug);
  customerToken = await signInCustomer(store.slug);
  receiver = await startWebhookReceiver();
  const hook = await api.post('/api/v1/webhooks', { url: `${receiver.url}/hook`, events: ['*'] });
  expect(hook.statusCode, hook.body).toBe(201);
  webhookId = hook.json().data.id;
  worker = startTestWorker(app);
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await app?.close();
  await smtp?.close();
});

describe('suspend, unsuspend and delete: the service operators and the CLI call', () => {
  it('refuses an empty or overlong reason, an unknown store, and states that forbid it', async () => {
    const lifecycle = app.services.storeLifecycle;
    await expect(lifecycle.suspend(store.id, '  ')).rejects.toMatchObject({ statusCode: 400 });
    await expect(lifecycle.suspend(store.id, 'x'.repeat(501))).rejects.toMatchObject({ statusCode: 400 });
    await expect(lifecycle.suspend(newId(), REASON)).rejects.toMatchObject({ statusCode: 404 });
    await expect(lifecycle.suspend('not-a-uuid', REASON)).rejects.toMatchObject({ statusCode: 404 });
    await expect(lifecycle.unsuspend(newId())).rejects.toMatchObject({ statusCode: 404 });
    await expect(lifecycle.requestDeletion(newId())).rejects.toMatchObject({ statusCode: 404 });
    // Unsuspending an active store changes nothing and records nothing.
    const same = await lifecycle.unsuspend(other.id, OPERATOR);
    expect(same).toMatchObject({ id: other.id, status: 'active', suspended_at: null });
    const doomed = (await createStoreWithKey(app)).store;
    await lifecycle.suspend(doomed.id, REASON);
    await expect(lifecycle.suspend(doomed.id, REASON)).rejects.toMatchObject({ statusCode: 409 });
    const deleting = await lifecycle.requestDeletion(doomed.id, OPERATOR);
    expect(deleting).toMatchObject({ status: 'deleting' });
    expect(deleting.deletion_requested_at).toBeInstanceOf(Date);
    for (const again of [
      () => lifecycle.suspend(doomed.id, REASON),
      () => lifecycle.unsuspend(doomed.id),
      () => lifecycle.requestDeletion(doomed.id),
    ])
      await expect(again()).rejects.toMatchObject({ statusCode: 404 });
  });

  it('while suspended: every surface is closed as the contract says, other stores are not', async () => {
    const before = await surfaces(store.slug);
    for (const answer of before) expect([200, 201, 202, 204, 400, 404], answer.name).toContain(answer.status);

    const suspended = await app.services.storeLifecycle.suspend(store.id, `  ${REASON} `, OPERATOR);
    expect(suspended).toMatchObject({ id: store.id, status: 'suspended', suspension_reason: REASON });
    expect(suspended.suspended_at).toBeInstanceOf(Date);

    // The next request of this process already sees it (its caches forgot the store).
    for (const answer of await surfaces(store.slug)) {
      expect(answer.status, `${answer.name}: ${answer.body}`).toBe(503);
      expect(answer.json().error.code, answer.name).toBe('unavailable');
    }
    const key = await api.get('/api/v1/products');
    expect(key.statusCode).toBe(403);
    expect(key.json().error).toEqual({
      code: 'forbidden',
      message: `This store is suspended: ${REASON}`,
    });
    const write = await api.post('/api/v1/products', { name: 'New', price: '1.00' });
    expect(write.statusCode).toBe(403);
    const session = await app.server.inject({
      method: 'GET',
      url: '/api/admin/me',
      headers: { cookie: adminCookie },
    });
    expect(session.statusCode).toBe(403);
    expect(session.json().error.message).toBe(`This store is suspended: ${REASON}`);
    const sessionV1 = await app.server.inject({
      method: 'GET',
      url: '/api/v1/orders',
      headers: { cookie: adminCookie },
    });
    expect(sessionV1.statusCode).toBe(403);

    // The shop: a "closed" page, on the slug path and on the store's own domain; never cached.
    for (const request of [
      { url: `/shop/${store.slug}/` },
      { url: `/shop/${store.slug}/products/${productSlug}` },
      { url: '/', headers: { host: DOMAIN } },
      { url: '/products', headers: { host: DOMAIN } },
    ]) {
      const page = await app.server.inject({ method: 'GET', ...request });
      expect(page.statusCode, request.url).toBe(503);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.headers['cache-control']).toContain('no-store');
      expect(page.body).toContain('Test Store is closed');
    }

    // Another store is untouched.
    expect((await otherApi.get('/api/v1/products')).statusCode).toBe(200);
    expect((await app.server.inject({ url: `/api/storefront/${other.slug}/products` })).statusCode).toBe(200);
    expect((await app.server.inject({ url: `/shop/${other.slug}/` })).statusCode).toBe(200);

    // Nothing was deleted, and the suspension is in the store's audit log.
    const products = await app.database.db
      .selectFrom('products')
      .select('id')
      .where('store_id', '=', store.id)
      .execute();
    expect(products).toHaveLength(1);
    const audit = await app.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('store_id', '=', store.id)
      .where('action', 'like', 'store.%')
      .execute();
    expect(audit).toEqual([
      expect.objectContaining({
        actor_type: 'system',
        actor_id: null,
        actor_name: 'operator ops@example.com',
        action: 'store.suspend',
        resource_type: 'store',
        resource_id: store.id,
      }),
    ]);
  });

  it('while suspended: its webhooks and e-mails wait, neither sent nor counted as failed', async () => {
    await recordEvent(app.database.db, store.id, 'order.created', { orderId: 'while-suspended' });
    await queueNotification(app.database.db, {
      storeId: store.id,
      kind: 'low_stock',
      to: 'merchant@closed-store.example',
      refs: { product_id: productId, quantity: 5, threshold: 10 },
    });
    // The worker polls at least every 5 s; 6 s leaves it room to (wrongly) claim them.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(receiver.received).toHaveLength(0);
    expect(smtp.received.filter((m) => m.envelope.to.includes('merchant@closed-store.example'))).toHaveLength(
      0,
    );
    const deliveries = await app.database.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts'])
      .where('webhook_id', '=', webhookId)
      .execute();
    expect(deliveries).toEqual([{ status: 'pending', attempts: 0 }]);
    const mails = await app.database.db
      .selectFrom('notifications')
      .select(['status', 'attempts'])
      .where('store_id', '=', store.id)
      .where('to_email', '=', 'merchant@closed-store.example')
      .execute();
    expect(mails).toEqual([{ status: 'pending', attempts: 0 }]);
    const hook = await app.database.db
      .selectFrom('webhooks')
      .select(['active', 'consecutive_failures'])
      .where('id', '=', webhookId)
      .executeTakeFirstOrThrow();
    expect(hook).toEqual({ active: true, consecutive_failures: 0 });
  });

  it('unsuspended: everything works again, and what waited goes out', async () => {
    const opened = await app.services.storeLifecycle.unsuspend(store.id, OPERATOR);
    expect(opened).toMatchObject({ status: 'active', suspended_at: null, suspension_reason: null });
    for (const answer of await surfaces(store.slug))
      expect([200, 201, 202, 204, 400, 404], `${answer.name}: ${answer.body}`).toContain(answer.status);
    expect((await api.get('/api/v1/products')).statusCode).toBe(200);
    const me = await app.server.inject({
      method: 'GET',
      url: '/api/admin/me',
      headers: { cookie: adminCookie },
    });
    expect(me.statusCode).toBe(200);
    expect((await app.server.inject({ url: `/shop/${store.slug}/` })).statusCode).toBe(200);
    expect((await app.server.inject({ url: '/', headers: { host: DOMAIN } })).statusCode).toBe(200);
    await receiver.waitFor(() => receiver.received.length >= 1, 10_000);
    expect(JSON.parse(receiver.received[0]?.body ?? '{}').data).toEqual({ orderId: 'while-suspended' });
    await smtp.waitFor((m) => m.envelope.to.includes('merchant@closed-store.example'), 10_000);
    const actions = await app.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('store_id', '=', store.id)
      .where('action', 'like', 'store.%')
      .orderBy('id')
      .execute();
    expect(actions.map((a) => a.action)).toEqual(['store.suspend', 'store.unsuspend']);
  });
});

describe('another process', () => {
  let second: TestApp;
  afterAll(async () => {
    await second?.close();
  });

  it('refuses a suspended store’s key within 5 s on its next request, and takes it again after', async () => {
    second = await buildTestApp({ testDatabase: app.testDatabase, config: UNLIMITED });
    const { key, store: own } = await createStoreWithKey(second);
    const remote = client(second, key);
    // Warm: the key and the store are now in the second process's caches.
    expect((await remote.get('/api/v1/products')).statusCode).toBe(200);
    const storefront = () => second.server.inject({ url: `/api/storefront/${own.slug}/products` });
    expect((await storefront()).statusCode).toBe(200);
    const suspendedAt = Date.now();
    await app.services.storeLifecycle.suspend(own.id, REASON);
    let refusedAt: number | undefined;
    while (Date.now() - suspendedAt < 6_000) {
      const res = await remote.get('/api/v1/products');
      if (res.statusCode === 403) {
        refusedAt = Date.now();
        expect(res.json().error.message).toBe(`This store is suspended: ${REASON}`);
        break;
      }
      expect(res.statusCode, res.body).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(refusedAt, 'the key was still let in after 6 s').toBeDefined();
    expect((refusedAt as number) - suspendedAt).toBeLessThanOrEqual(5_200);
    // The storefront's cached store row lives 5 s too.
    while ((await storefront()).statusCode !== 503) {
      expect(Date.now() - suspendedAt).toBeLessThan(5_200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await app.services.storeLifecycle.unsuspend(own.id);
    const reopenedAt = Date.now();
    while ((await remote.get('/api/v1/products')).statusCode !== 200) {
      expect(Date.now() - reopenedAt).toBeLessThan(5_200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
