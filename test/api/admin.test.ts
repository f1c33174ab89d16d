import { randomBytes, scryptSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createProduct, eventsOf, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';

let app: TestApp;
let storeId: string;
let slug: string;
const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'correct horse battery';
let email: string;

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN } });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  slug = store.store.slug;
  email = `owner.${Date.now()}@example.com`;
  await app.services.stores.createAdminUser({ email, password: PASSWORD, storeSlug: slug });
});
afterAll(() => app.close());

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
const request = (
  method: Method,
  url: string,
  headers: Record<string, string> = {},
  payload?: unknown,
  ip = '10.1.1.1',
) =>
  app.server.inject({
    method,
    url,
    headers,
    remoteAddress: ip,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

async function signIn() {
  const res = await request('POST', '/api/admin/auth/login', {}, { email, password: PASSWORD });
  expect(res.statusCode, res.body).toBe(200);
  const cookie = String(res.headers['set-cookie']);
  return { res, cookie: cookie.split(';')[0] as string, setCookie: cookie };
}

describe('dashboard sign-in', () => {
  it('signs in with e-mail and password: Strict, HttpOnly cookie; me; logout', async () => {
    const { res, cookie, setCookie } = await signIn();
    expect(setCookie).toMatch(/^emporium_admin=as_[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    expect(res.json().data).toMatchObject({ user: { email }, store: { id: storeId, slug } });
    const me = await request('GET', '/api/admin/me', { cookie });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.stores).toEqual([{ id: storeId, slug, name: 'Test Store', role: 'owner' }]);
    const out = await request('POST', '/api/admin/auth/logout', { cookie, origin: ORIGIN });
    expect(out.statusCode).toBe(204);
    expect((await request('GET', '/api/admin/me', { cookie })).statusCode).toBe(401);
  });

  it('a wrong password or unknown e-mail is 401 with the same message; attempts are limited', async () => {
    const wrong = await request('POST', '/api/admin/auth/login', {}, { email, password: 'nope' }, '10.2.2.2');
    const unknown = await request(
      'POST',
      '/api/admin/auth/login',
      {},
      { email: 'who@example.com', password: 'nope' },
      '10.2.2.2',
    );
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json().error.message).toBe(unknown.json().error.message);
    const victim = `victim.${Date.now()}@example.com`;
    const attempt = async (i: number) =>
      (await request('POST', '/api/admin/auth/login', {}, { email: victim, password: 'x' }, `10.3.3.${i}`))
        .statusCode;
    // Ten at once (each is counted before its scrypt, which costs the most), then the eleventh.
    const codes = await Promise.all(Array.from({ length: 10 }, (_, i) => attempt(i)));
    expect(codes).toEqual(Array(10).fill(401));
    expect(await attempt(10)).toBe(429);
  });

  it('the API is closed without a session, and an API key does not open /api/admin', async () => {
    expect((await request('GET', '/api/admin/me')).statusCode).toBe(401);
    const { key } = await createStoreWithKey(app);
    expect((await request('GET', '/api/admin/store', { 'x-api-key': key })).statusCode).toBe(401);
    expect((await request('GET', '/api/admin/me', { cookie: 'emporium_admin=as_forged' })).statusCode).toBe(
      401,
    );
  });
});

describe('password hashes made with older scrypt parameters', () => {
  /** A user whose stored hash was made with N=2^14 (this code's parameters until 2026-11), by Node's scrypt. */
  async function legacyUser(password: string) {
    const user = `legacy.${randomBytes(4).toString('hex')}@example.com`;
    await app.services.stores.createAdminUser({
      email: user,
      password: 'replaced-by-the-legacy-hash-below',
      storeSlug: slug,
    });
    const salt = randomBytes(16);
    const key = scryptSync(password, salt, 32, { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const hash = `scrypt$16384$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
    await app.database.db
      .updateTable('admin_users')
      .set({ password_hash: hash })
      .where('email', '=', user)
      .execute();
    return { user, hash };
  }
  const storedHash = async (user: string) =>
    (
      await app.database.db
        .selectFrom('admin_users')
        .select('password_hash')
        .where('email', '=', user)
        .executeTakeFirstOrThrow()
    ).password_hash;
  const login = (user: string, password: string) =>
    request('POST', '/api/admin/auth/login', {}, { email: user, password }, '10.4.4.4');

  it('are replaced by a hash with the current parameters at the next successful sign-in', async () => {
    const { user, hash } = await legacyUser(PASSWORD);
    const res = await login(user, PASSWORD);
    expect(res.statusCode, res.body).toBe(200);
    const upgraded = await storedHash(user);
    expect(upgraded).not.toBe(hash);
    expect(upgraded).toMatch(/^scrypt\$131072\$8\$1\$/);
    // The new hash holds the same password, and the old one no longer does anything.
    expect((await login(user, PASSWORD)).statusCode).toBe(200);
    expect(await storedHash(user)).toBe(upgraded);
    expect((await login(user, 'wrong password')).statusCode).toBe(401);
  });

  it('are left alone by a wrong password', async () => {
    const { user, hash } = await legacyUser(PASSWORD);
    const res = await login(user, 'not the password');
    expect(res.statusCode).toBe(401);
    expect(await storedHash(user)).toBe(hash);
  });
});

describe('the dashboard session on /api/v1', () => {
  it('has every scope of its store; its writes need the same origin; events say source admin', async () => {
    const { cookie } = await signIn();
    const product = await createProduct(
      client(app, (await app.services.stores.createApiKey(storeId, { scopes: 'all' })).key),
      { inventory: 5 },
    );
    expect((await request('GET', '/api/v1/products', { cookie })).statusCode).toBe(200);
    expect((await request('GET', '/api/v1/analytics', { cookie })).statusCode).not.toBe(403);
    const order = await createOrder(
      client(app, (await app.services.stores.createApiKey(storeId, { scopes: 'all' })).key),
      {
        items: [{ product_id: product.id, quantity: 1 }],
      },
    );
    const crossSite = await request(
      'PATCH',
      `/api/v1/orders/${order.id}`,
      { cookie, origin: 'https://evil.example' },
      { notes: 'x' },
    );
    expect(crossSite.statusCode).toBe(403);
    expect(
      (await request('PATCH', `/api/v1/orders/${order.id}`, { cookie }, { notes: 'x' })).statusCode,
    ).toBe(403);
    const ok = await request(
      'PATCH',
      `/api/v1/orders/${order.id}`,
      { cookie, origin: ORIGIN },
      { notes: 'from the dashboard' },
    );
    expect(ok.statusCode).toBe(200);
    const updated = (await eventsOf(app.database.db, storeId))
      .filter((e) => e.name === 'order.updated')
      .at(-1);
    expect(updated?.data).toMatchObject({ orderId: order.id, source: 'admin' });
    expect(ok.headers['x-ratelimit-limit']).toBeDefined();
    // Another store's order stays invisible.
    const other = await createStoreWithKey(app);
    const otherProduct = await createProduct(client(app, other.key), { inventory: 1 });
    const otherOrder = await createOrder(client(app, other.key), {
      items: [{ product_id: otherProduct.id, quantity: 1 }],
    });
    expect((await request('GET', `/api/v1/orders/${otherOrder.id}`, { cookie })).statusCode).toBe(404);
  });

  it('saves the mobile app config through the storefront endpoint', async () => {
    const { cookie } = await signIn();
    const res = await request(
      'PUT',
      `/api/storefront/${slug}/app-config`,
      { cookie, origin: ORIGIN },
      { theme: 'dark' },
    );
    expect(res.statusCode).toBe(200);
    expect((await request('GET', `/api/storefront/${slug}/app-config`)).json().data).toEqual({
      theme: 'dark',
    });
  });
});

describe('store settings and API keys', () => {
  it('reads and changes settings; bad values are 400; a currency change is 409 (the store has orders)', async () => {
    const { cookie } = await signIn();
    const h = { cookie, origin: ORIGIN };
    const before = (await request('GET', '/api/admin/store', { cookie })).json().data;
    expect(before).toMatchObject({
      slug,
      currency: 'USD',
      timezone: 'UTC',
      shipping_flat_rate: '0.00',
      tax_rate: '0',
    });
    const res = await request('PATCH', '/api/admin/store', h, {
      name: 'Renamed',
      colors: { primary: '#112233' },
      timezone: 'Europe/Berlin',
      shipping_flat_rate: '4.95',
      free_shipping_threshold: 50,
      tax_rate: '8.25',
      low_stock_threshold: 3,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      name: 'Renamed',
      timezone: 'Europe/Berlin',
      shipping_flat_rate: '4.95',
      free_shipping_threshold: '50.00',
      tax_rate: '8.25',
      low_stock_threshold: 3,
      currency: 'USD',
    });
    expect(res.json().data.colors.primary).toBe('#112233');
    expect((await request('GET', `/api/storefront/${slug}/config`)).json().data.name).toBe('Renamed');
    for (const body of [
      { timezone: 'Mars/Base' },
      { tax_rate: '101' },
      { colors: { primary: 'red' } },
      { shipping_flat_rate: '-1' },
      {},
    ]) {
      expect((await request('PATCH', '/api/admin/store', h, body)).statusCode, JSON.stringify(body)).toBe(
        400,
      );
    }
    // An order was placed above: see store-currency.test.ts for the currency's rules.
    expect((await request('PATCH', '/api/admin/store', h, { currency: 'EUR' })).statusCode).toBe(409);
  });

  it('creates a key shown once that works on the API, lists it, revokes it', async () => {
    const { cookie } = await signIn();
    const h = { cookie, origin: ORIGIN };
    const created = await request('POST', '/api/admin/api-keys', h, { name: 'ERP', scopes: ['orders:read'] });
    expect(created.statusCode).toBe(201);
    const { id, key } = created.json().data;
    expect(key).toMatch(/^sk_/);
    expect((await request('GET', '/api/v1/orders', { 'x-api-key': key })).statusCode).toBe(200);
    expect((await request('GET', '/api/v1/products', { 'x-api-key': key })).statusCode).toBe(403);
    const list = (await request('GET', '/api/admin/api-keys', { cookie })).json().data;
    const listed = list.find((k: { id: string }) => k.id === id);
    expect(listed).toMatchObject({ name: 'ERP', scopes: ['orders:read'], revoked_at: null });
    expect(JSON.stringify(list)).not.toContain(key);
    expect((await request('POST', '/api/admin/api-keys', h, { scopes: ['everything'] })).statusCode).toBe(
      400,
    );
    expect((await request('DELETE', `/api/admin/api-keys/${id}`, h)).statusCode).toBe(204);
    expect((await request('GET', '/api/v1/orders', { 'x-api-key': key })).statusCode).toBe(401);
    expect((await request('DELETE', '/api/admin/api-keys/not-an-id', h)).statusCode).toBe(404);
  });
});
