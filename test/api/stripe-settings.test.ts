import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type FakeStripe, startFakeStripe, stripeKeys } from '../helpers/fake-stripe.js';
import { checkoutBody } from '../helpers/order-factories.js';

let app: TestApp;
let stripe: FakeStripe;
let api: Client;
let shop: Client;
let slug: string;
let storeId: string;

beforeAll(async () => {
  stripe = await startFakeStripe();
  app = await buildTestApp({
    config: {
      ...UNLIMITED,
      publicUrl: 'https://shop.example.com',
      stripe: { apiBase: stripe.url, timeoutMs: 2000 },
    },
  });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
  shop = client(app);
  slug = store.store.slug;
  storeId = store.store.id;
});
afterAll(async () => {
  await app.close();
  await stripe.close();
});

const settings = () => api.get('/api/v1/payments/stripe');

describe('/api/v1/payments/stripe', () => {
  it('is not connected at first, and names the webhook URL to give Stripe', async () => {
    const res = await settings();
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      enabled: false,
      publishable_key: null,
      secret_key_last4: null,
      webhook_url: `https://shop.example.com/api/payments/stripe/${slug}/webhook`,
    });
  });

  it('refuses keys that are not Stripe keys, naming each field, and keys of two modes', async () => {
    const bad = await api.put('/api/v1/payments/stripe', {
      secret_key: 'pk_test_0123456789abcdef',
      publishable_key: 'sk_test_0123456789abcdef',
      webhook_secret: 'secret',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('invalid_request');
    expect(bad.json().error.details.map((d: { field: string }) => d.field)).toEqual([
      'secret_key',
      'publishable_key',
      'webhook_secret',
    ]);
    const keys = stripeKeys();
    const mixed = await api.put('/api/v1/payments/stripe', {
      ...keys,
      publishable_key: keys.publishable_key.replace('pk_test_', 'pk_live_'),
    });
    expect(mixed.statusCode).toBe(400);
    expect(mixed.json().error.details[0].field).toBe('publishable_key');
    const missing = await api.put('/api/v1/payments/stripe', { secret_key: keys.secret_key });
    expect(missing.statusCode).toBe(400);
    const extra = await api.put('/api/v1/payments/stripe', { ...keys, account: 'acct_1' });
    expect(extra.statusCode).toBe(400);
    expect((await settings()).json().data.enabled).toBe(false);
  });

  it('connects: secrets sealed at rest, never returned; the storefront offers Stripe', async () => {
    const keys = stripeKeys();
    const res = await api.put('/api/v1/payments/stripe', keys);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      enabled: true,
      publishable_key: keys.publishable_key,
      secret_key_last4: keys.secret_key.slice(-4),
      webhook_url: `https://shop.example.com/api/payments/stripe/${slug}/webhook`,
    });
    expect(res.body).not.toContain(keys.secret_key);
    expect(res.body).not.toContain(keys.webhook_secret);
    expect((await settings()).body).not.toContain(keys.secret_key);
    const row = await app.database.db
      .selectFrom('stripe_accounts')
      .selectAll()
      .where('store_id', '=', storeId)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(keys.secret_key);
    expect(JSON.stringify(row)).not.toContain(keys.webhook_secret);
    expect(row.secret_key_sealed).toMatch(/^v1\./);

    const config = await shop.get(`/api/storefront/${slug}/config`);
    expect(config.json().data.payments).toEqual({
      methods: ['manual', 'test_card', 'stripe'],
      stripePublishableKey: keys.publishable_key,
    });
  });

  it('disconnects: checkout refuses Stripe (400), the storefront no longer offers it; reconnecting works', async () => {
    const del = await api.del('/api/v1/payments/stripe');
    expect(del.statusCode).toBe(204);
    expect((await settings()).json().data).toMatchObject({ enabled: false, publishable_key: null });
    const config = await shop.get(`/api/storefront/${slug}/config`);
    expect(config.json().data.payments).toEqual({ methods: ['manual', 'test_card'] });

    const p = await createProduct(api, { price: '10.00', inventory: 3 });
    const res = await shop.post(
      `/api/storefront/${slug}/checkout`,
      checkoutBody([{ productId: p.id, quantity: 1 }], { paymentMethod: 'stripe' }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([
      { field: 'paymentMethod', message: 'Stripe is not connected for this store' },
    ]);
    expect((await api.get(`/api/v1/inventory/${p.id}`)).json().data.inventory).toBe(3);
    expect((await api.get('/api/v1/orders')).json().meta.pagination.total).toBe(0);
    expect(stripe.requests).toHaveLength(0);

    const again = await api.put('/api/v1/payments/stripe', stripeKeys());
    expect(again.json().data.enabled).toBe(true);
  });

  it('scopes: settings:read reads, settings:write changes; none is 401', async () => {
    const reader = client(
      app,
      (await app.services.stores.createApiKey(storeId, { scopes: ['settings:read'] })).key,
    );
    const other = client(
      app,
      (await app.services.stores.createApiKey(storeId, { scopes: ['orders:read'] })).key,
    );
    expect((await reader.get('/api/v1/payments/stripe')).statusCode).toBe(200);
    expect((await reader.put('/api/v1/payments/stripe', stripeKeys())).statusCode).toBe(403);
    expect((await reader.del('/api/v1/payments/stripe')).statusCode).toBe(403);
    expect((await other.get('/api/v1/payments/stripe')).statusCode).toBe(403);
    expect((await other.get('/api/v1/payments/stripe')).json().error.code).toBe('forbidden');
    const anonymous = await shop.get('/api/v1/payments/stripe');
    expect(anonymous.statusCode).toBe(401);
    expect((await settings()).json().data.enabled).toBe(true);
  });

  it("is per store: another store's settings are its own", async () => {
    const b = await createStoreWithKey(app);
    const res = await client(app, b.key).get('/api/v1/payments/stripe');
    expect(res.json().data).toMatchObject({ enabled: false, publishable_key: null });
    expect(res.json().data.webhook_url).toContain(`/api/payments/stripe/${b.store.slug}/webhook`);
  });
});
