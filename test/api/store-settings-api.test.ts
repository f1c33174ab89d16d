import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';

/**
 * Contract §12: GET / PATCH /api/v1/store, the dashboard's settings for integrations (scopes
 * settings:read / settings:write), with the same rules as /api/admin/store, which it shares.
 */
let app: TestApp;
const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN } });
});
afterAll(() => app.close());

/** A fresh store, its API key (all scopes) and a signed-in dashboard session. */
async function storeWithSession() {
  const { store, key } = await createStoreWithKey(app);
  const email = `owner.${store.slug}@example.com`;
  await app.services.stores.createAdminUser({ email, password: PASSWORD, storeSlug: store.slug });
  const login = await app.server.inject({
    method: 'POST',
    url: '/api/admin/auth/login',
    payload: { email, password: PASSWORD },
  });
  expect(login.statusCode, login.body).toBe(200);
  const cookie = String(login.headers['set-cookie']).split(';')[0] as string;
  const admin = {
    get: () => app.server.inject({ method: 'GET', url: '/api/admin/store', headers: { cookie } }),
    patch: (payload: Record<string, unknown>) =>
      app.server.inject({
        method: 'PATCH',
        url: '/api/admin/store',
        headers: { cookie, origin: ORIGIN },
        payload,
      }),
  };
  const api = {
    get: (k = key) => app.server.inject({ method: 'GET', url: '/api/v1/store', headers: { 'x-api-key': k } }),
    patch: (payload: unknown, headers: Record<string, string> = {}, k = key) =>
      app.server.inject({
        method: 'PATCH',
        url: '/api/v1/store',
        headers: { 'x-api-key': k, ...headers },
        payload: payload as Record<string, unknown>,
      }),
  };
  return { store, key, admin, api };
}

const fieldsOf = (res: { json: () => { error: { details?: { field: string }[] } } }) =>
  (res.json().error.details ?? []).map((d) => d.field);

describe('GET /api/v1/store', () => {
  it("answers the store's settings in snake_case with an ETag, and without the mobile app's config", async () => {
    const { store, api } = await storeWithSession();
    const res = await api.get();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers.etag).toMatch(/^"/);
    const data = res.json().data;
    expect(data).toMatchObject({
      id: store.id,
      slug: store.slug,
      name: 'Test Store',
      currency: 'USD',
      timezone: 'UTC',
      contact_email: null,
      logo: null,
      colors: {},
      shipping_flat_rate: '0.00',
      free_shipping_threshold: null,
      tax_rate: '0',
      prices_include_tax: false,
      low_stock_threshold: expect.any(Number),
      custom_domain: null,
      has_orders: false,
    });
    expect(data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(data).not.toHaveProperty('app_config');
  });
});

describe('PATCH /api/v1/store', () => {
  it('writes each field and reads it back', async () => {
    const { api } = await storeWithSession();
    const change = {
      name: 'Renamed Store',
      currency: 'eur',
      timezone: 'Europe/Berlin',
      contact_email: 'orders@example.com',
      colors: { primary: '#112233' },
      logo: 'https://cdn.example.com/logo.png',
      shipping_flat_rate: '4.90',
      free_shipping_threshold: 50,
      tax_rate: '7.25',
      prices_include_tax: true,
      low_stock_threshold: 3,
      custom_domain: 'Shop.Example.ORG',
    };
    const res = await api.patch(change);
    expect(res.statusCode, res.body).toBe(200);
    const expected = {
      name: 'Renamed Store',
      currency: 'EUR',
      timezone: 'Europe/Berlin',
      contact_email: 'orders@example.com',
      colors: { primary: '#112233' },
      logo: 'https://cdn.example.com/logo.png',
      shipping_flat_rate: '4.90',
      free_shipping_threshold: '50.00',
      tax_rate: '7.25',
      prices_include_tax: true,
      low_stock_threshold: 3,
      custom_domain: 'shop.example.org',
    };
    expect(res.json().data).toMatchObject(expected);
    expect((await api.get()).json().data).toMatchObject(expected);

    // null clears what may be cleared; a colour set to null falls back to its default.
    const cleared = await api.patch({
      contact_email: null,
      logo: null,
      free_shipping_threshold: null,
      custom_domain: null,
      colors: { primary: null },
      prices_include_tax: false,
    });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().data).toMatchObject({
      contact_email: null,
      logo: null,
      free_shipping_threshold: null,
      custom_domain: null,
      colors: {},
      prices_include_tax: false,
    });
  });

  it('refuses bad input with 400 naming the field, and changes nothing', async () => {
    const { api } = await storeWithSession();
    const before = (await api.get()).json().data;
    const cases: [Record<string, unknown>, string][] = [
      [{ contact_email: 'not an e-mail' }, 'contact_email'],
      [{ contact_email: 'a@b' }, 'contact_email'],
      [{ contact_email: 42 }, 'contact_email'],
      [{ prices_include_tax: 'yes' }, 'prices_include_tax'],
      [{ prices_include_tax: null }, 'prices_include_tax'],
      [{ name: '' }, 'name'],
      [{ currency: 'EURO' }, 'currency'],
      [{ currency: 'XYZ' }, 'currency'],
      [{ tax_rate: '101' }, 'tax_rate'],
      [{ tax_rate: -1 }, 'tax_rate'],
      [{ shipping_flat_rate: '-1' }, 'shipping_flat_rate'],
      [{ free_shipping_threshold: 'lots' }, 'free_shipping_threshold'],
      [{ low_stock_threshold: -1 }, 'low_stock_threshold'],
      [{ low_stock_threshold: 1.5 }, 'low_stock_threshold'],
      [{ logo: 'javascript:alert(1)' }, 'logo'],
      [{ colors: { primary: 'red' } }, 'colors.primary'],
    ];
    for (const [body, field] of cases) {
      const res = await api.patch(body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    const unknown = await api.patch({ app_config: {} });
    expect(unknown.statusCode).toBe(400);
    expect((await api.patch({})).statusCode).toBe(400);
    expect((await api.get()).json().data).toEqual(before);
  });

  it('refuses a currency change once the store has orders (409), as the dashboard does', async () => {
    const { api, key } = await storeWithSession();
    const product = await createProduct(client(app, key), { inventory: 5, price: 10 });
    await createOrder(client(app, key), { items: [{ product_id: product.id, quantity: 1 }] });
    const refused = await api.patch({ currency: 'EUR' });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error.code).toBe('conflict');
    expect((await api.get()).json().data).toMatchObject({ currency: 'USD', has_orders: true });
  });

  it('honours If-Match: the current ETag applies, a stale one is 412 and changes nothing', async () => {
    const { api } = await storeWithSession();
    const first = await api.get();
    const etag = String(first.headers.etag);
    const ok = await api.patch({ name: 'First' }, { 'if-match': etag });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.headers.etag).not.toBe(etag);
    const stale = await api.patch({ name: 'Second' }, { 'if-match': etag });
    expect(stale.statusCode, stale.body).toBe(412);
    expect(stale.json().error.code).toBe('precondition_failed');
    expect((await api.get()).json().data.name).toBe('First');
    const fresh = await api.patch({ name: 'Second' }, { 'if-match': String(ok.headers.etag) });
    expect(fresh.statusCode, fresh.body).toBe(200);
  });

  it('needs settings:read to read and settings:write to write (403), a key to do either (401)', async () => {
    const { store, api } = await storeWithSession();
    const reader = (await app.services.stores.createApiKey(store.id, { scopes: ['settings:read'] })).key;
    const other = (
      await app.services.stores.createApiKey(store.id, { scopes: ['products:read', 'orders:write'] })
    ).key;
    expect((await api.get(reader)).statusCode).toBe(200);
    expect((await api.get(other)).statusCode).toBe(403);
    const denied = await api.patch({ name: 'Nope' }, {}, reader);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('forbidden');
    expect((await api.patch({ name: 'Nope' }, {}, other)).statusCode).toBe(403);
    expect((await app.server.inject({ method: 'GET', url: '/api/v1/store' })).statusCode).toBe(401);
    expect((await api.get()).json().data.name).toBe('Test Store');
  });

  it("touches only the key's own store", async () => {
    const a = await storeWithSession();
    const b = await storeWithSession();
    expect((await a.api.patch({ name: 'Store A' })).statusCode).toBe(200);
    expect((await b.api.get()).json().data).toMatchObject({ id: b.store.id, name: 'Test Store' });
  });

  it('an API-key write is seen by the dashboard, and a dashboard write by the API', async () => {
    const { api, admin } = await storeWithSession();
    expect(
      (await api.patch({ contact_email: 'hello@example.com', prices_include_tax: true })).statusCode,
    ).toBe(200);
    expect((await admin.get()).json().data).toMatchObject({
      contact_email: 'hello@example.com',
      prices_include_tax: true,
    });
    const viaDashboard = await admin.patch({ contact_email: 'shop@example.net', tax_rate: '19' });
    expect(viaDashboard.statusCode, viaDashboard.body).toBe(200);
    expect((await api.get()).json().data).toMatchObject({
      contact_email: 'shop@example.net',
      tax_rate: '19',
      prices_include_tax: true,
    });
    // The dashboard answers the same rules for the new fields.
    const bad = await admin.patch({ contact_email: 'nope', prices_include_tax: 'no' });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(expect.arrayContaining(['contact_email', 'prices_include_tax']));
    // One ETag for both: a read through one is a valid If-Match through the other.
    const etag = String((await admin.get()).headers.etag);
    expect((await api.patch({ name: 'Via API' }, { 'if-match': etag })).statusCode).toBe(200);
    expect(
      (
        await app.server.inject({
          method: 'PATCH',
          url: '/api/admin/store',
          headers: { cookie: '', origin: ORIGIN },
          payload: { name: 'x' },
        })
      ).statusCode,
    ).toBe(401);
  });
});
