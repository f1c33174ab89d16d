import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/**
 * Contract §10: a store's custom domain, set in the dashboard's settings, unique across stores, and
 * trusted for cookie writes of that store's sessions only.
 */

const PUBLIC_URL = 'https://emporium.example.com';
const PASSWORD = 'correct horse battery';

type Headers = Record<string, string>;
type Method = 'GET' | 'POST' | 'PATCH' | 'PUT';

async function adminCookie(app: TestApp, slug: string): Promise<string> {
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

async function customerCookie(app: TestApp, smtp: SmtpCatcher, slug: string): Promise<string> {
  const email = `shopper.${Math.random().toString(36).slice(2)}.${slug}@example.com`;
  const url = `/api/storefront/${slug}/auth`;
  const requested = await app.server.inject({
    method: 'POST',
    url: `${url}/request-code`,
    payload: { email },
  });
  expect(requested.statusCode).toBe(202);
  const mail = await smtp.waitFor((m) => (m.to ?? '').includes(email));
  const code = mail.text.match(/\b(\d{6})\b/)?.[1] as string;
  const verified = await app.server.inject({
    method: 'POST',
    url: `${url}/verify`,
    payload: { email, code },
  });
  expect(verified.statusCode, verified.body).toBe(200);
  return String(verified.headers['set-cookie']).split(';')[0] as string;
}

describe('custom domain in the store settings', () => {
  let app: TestApp;
  let smtp: SmtpCatcher;
  let a: { id: string; slug: string; cookie: string };
  let b: { id: string; slug: string; cookie: string };

  const call = (method: Method, url: string, headers: Headers, payload?: object) =>
    app.server.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  const setDomain = (cookie: string, custom_domain: unknown, headers: Headers = {}) =>
    call('PATCH', '/api/admin/store', { cookie, origin: PUBLIC_URL, ...headers }, { custom_domain });

  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    app = await buildTestApp({ config: { ...UNLIMITED, smtpUrl: smtp.url, publicUrl: PUBLIC_URL } });
    const storeA = (await createStoreWithKey(app)).store;
    const storeB = (await createStoreWithKey(app)).store;
    a = { id: storeA.id, slug: storeA.slug, cookie: await adminCookie(app, storeA.slug) };
    b = { id: storeB.id, slug: storeB.slug, cookie: await adminCookie(app, storeB.slug) };
  });
  afterAll(async () => {
    await app.close();
    await smtp.close();
  });

  it('is null until set; set, it is stored lower-case and trimmed, and shown by GET', async () => {
    const before = await call('GET', '/api/admin/store', { cookie: a.cookie });
    expect(before.json().data.custom_domain).toBeNull();
    const res = await setDomain(a.cookie, '  Shop.A-Store.Example ');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.custom_domain).toBe('shop.a-store.example');
    const after = await call('GET', '/api/admin/store', { cookie: a.cookie });
    expect(after.json().data.custom_domain).toBe('shop.a-store.example');
    // Only store A's settings changed.
    expect(
      (await call('GET', '/api/admin/store', { cookie: b.cookie })).json().data.custom_domain,
    ).toBeNull();
  });

  it('findActiveStoreByDomain finds the store by any spelling of the Host header, and nothing else', async () => {
    const { stores } = app.services;
    for (const host of ['shop.a-store.example', 'SHOP.A-Store.example:8443', 'shop.a-store.example.']) {
      expect((await stores.findActiveStoreByDomain(host))?.id, host).toBe(a.id);
    }
    for (const host of ['a-store.example', 'other.example', 'localhost:3000', '127.0.0.1', '[::1]:80', '']) {
      expect(await stores.findActiveStoreByDomain(host), host).toBeUndefined();
    }
  });

  it('a disabled store answers on its domain no more', async () => {
    const { store } = await createStoreWithKey(app);
    await app.services.stores.updateSettings(store.id, { custom_domain: 'closed.example' });
    await sql`UPDATE stores SET status = 'disabled' WHERE id = ${store.id}`.execute(app.database.db);
    expect(await app.services.stores.findActiveStoreByDomain('closed.example')).toBeUndefined();
  });

  it.each([
    'https://shop.example.com',
    'shop.example.com:8080',
    'shop.example.com/path',
    'localhost',
    '127.0.0.1',
    'shop..example.com',
    '-shop.example.com',
    'shop_example.com',
    `${'a'.repeat(64)}.example.com`,
    'emporium.example.com',
  ])('refuses %s: 400 naming custom_domain, nothing changed', async (value) => {
    const res = await setDomain(a.cookie, value);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(JSON.stringify(res.json().error.details)).toContain('custom_domain');
    const now = await call('GET', '/api/admin/store', { cookie: a.cookie });
    expect(now.json().data.custom_domain).toBe('shop.a-store.example');
  });

  it.each([
    ['www.emporium.example.com', /this server's own address/],
    ['admin.emporium.example.com', /this server's own address/],
    ['A.B.Emporium.Example.com', /this server's own address/],
    ['localhost', /localhost/],
    ['shop.localhost', /localhost/],
    ['127.0.0.1', /IP address/],
    ['10.0.0.1', /IP address/],
    ['[::1]', /IP address/],
    ['::1', /IP address/],
    ['[2001:db8::1]', /IP address/],
    ['shop.0x7f', /IP address/],
    ['0x7f.0.0.1', /IP address/],
    ['shop', /single name/],
    ['127.0.0.1.nip.io', /nip\.io/],
    ['nip.io', /nip\.io/],
    ['shop-10-0-0-1.sslip.io', /sslip\.io/],
    ['app.LOCALTEST.me', /localtest\.me/],
  ])('refuses %s: 400 naming custom_domain, saying why', async (value, reason) => {
    const res = await setDomain(a.cookie, value);
    expect(res.statusCode, res.body).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual([{ field: 'custom_domain', message: expect.stringMatching(reason) }]);
    expect(error.message).toMatch(reason);
    const now = await call('GET', '/api/admin/store', { cookie: a.cookie });
    expect(now.json().data.custom_domain).toBe('shop.a-store.example');
  });

  it('keeps a domain stored before these rules: it still routes, and saving it unchanged is no error', async () => {
    const { store } = await createStoreWithKey(app);
    const cookie = await adminCookie(app, store.slug);
    const old = `www.${new URL(PUBLIC_URL).hostname}`;
    // Stored by an older version, which accepted it; the store's cache is emptied by a settings change.
    await sql`UPDATE stores SET custom_domain = ${old} WHERE id = ${store.id}`.execute(app.database.db);
    // The dashboard sends every field, the domain included, when any setting is saved.
    const saved = await call(
      'PATCH',
      '/api/admin/store',
      { cookie, origin: PUBLIC_URL },
      { name: 'Kept Domain', custom_domain: old.toUpperCase() },
    );
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().data).toMatchObject({ name: 'Kept Domain', custom_domain: old });
    const page = await app.server.inject({ method: 'GET', url: '/', headers: { host: old } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Kept Domain');
    // Another name under the platform's host is still refused for it.
    const other = await setDomain(cookie, `admin.${new URL(PUBLIC_URL).hostname}`);
    expect(other.statusCode).toBe(400);
  });

  it('refuses a value that is not a string', async () => {
    expect((await setDomain(a.cookie, 42)).statusCode).toBe(400);
  });

  it('refuses a domain another store uses: 409, in any case; the other store keeps it', async () => {
    for (const value of ['shop.a-store.example', 'SHOP.A-STORE.EXAMPLE']) {
      const res = await setDomain(b.cookie, value);
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().error.code).toBe('conflict');
      expect(res.json().error.message).toContain('custom domain');
    }
    expect(
      (await call('GET', '/api/admin/store', { cookie: b.cookie })).json().data.custom_domain,
    ).toBeNull();
    expect((await app.services.stores.findActiveStoreByDomain('shop.a-store.example'))?.id).toBe(a.id);
    // Setting one's own domain again is no conflict.
    expect((await setDomain(a.cookie, 'shop.a-store.example')).statusCode).toBe(200);
  });

  it('null (or empty) clears it: the domain answers nothing at once and is free for another store', async () => {
    expect(await app.services.stores.findActiveStoreByDomain('shop.a-store.example')).toBeDefined();
    const cleared = await setDomain(a.cookie, null);
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json().data.custom_domain).toBeNull();
    expect(await app.services.stores.findActiveStoreByDomain('shop.a-store.example')).toBeUndefined();
    const taken = await setDomain(b.cookie, 'shop.a-store.example');
    expect(taken.json().data.custom_domain).toBe('shop.a-store.example');
    expect((await app.services.stores.findActiveStoreByDomain('shop.a-store.example'))?.id).toBe(b.id);
    expect((await setDomain(b.cookie, '')).json().data.custom_domain).toBeNull();
    expect((await setDomain(a.cookie, 'shop.a-store.example')).statusCode).toBe(200);
  });

  it('trusts the domain’s https origin for cookie writes of that store’s dashboard session only', async () => {
    const origin = 'https://shop.a-store.example';
    const rename = (cookie: string, headers: Headers) =>
      call('PATCH', '/api/admin/store', { cookie, ...headers }, { name: 'Renamed' });
    expect((await rename(a.cookie, { origin })).statusCode).toBe(200);
    expect((await rename(a.cookie, { referer: `${origin}/cart` })).statusCode).toBe(200);
    // Store B's session from store A's domain, and store A's over http on an https deployment.
    for (const [cookie, from] of [
      [b.cookie, origin],
      [a.cookie, 'http://shop.a-store.example'],
      [a.cookie, 'https://shop.a-store.example:8443'],
    ] as const) {
      const res = await rename(cookie, { origin: from });
      expect(res.statusCode, from).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
    }
  });

  it('trusts it for that store’s customer sessions only', async () => {
    const origin = 'https://shop.a-store.example';
    const update = (cookie: string) =>
      call('PUT', '/api/customer/update', { cookie, origin }, { firstName: 'Ada' });
    expect((await update(await customerCookie(app, smtp, a.slug))).statusCode).toBe(200);
    const other = await update(await customerCookie(app, smtp, b.slug));
    expect(other.statusCode).toBe(403);
    // Cleared, the domain is trusted no more.
    expect((await setDomain(a.cookie, null)).statusCode).toBe(200);
    expect((await update(await customerCookie(app, smtp, a.slug))).statusCode).toBe(403);
    expect((await setDomain(a.cookie, 'shop.a-store.example')).statusCode).toBe(200);
  });

  it('another process (an http deployment) loads the domains it did not set; http is trusted there', async () => {
    const second = await buildTestApp({
      testDatabase: app.testDatabase,
      config: { ...UNLIMITED, publicUrl: 'http://localhost:3000' },
    });
    try {
      const write = (cookie: string, origin: string) =>
        second.server.inject({
          method: 'POST',
          url: '/api/v1/categories',
          headers: { cookie, origin },
          payload: { name: `c-${Math.random()}` },
        });
      // The first load is not awaited by buildApp: it lands within moments.
      await vi.waitFor(async () => {
        const res = await write(a.cookie, 'http://shop.a-store.example');
        expect(res.statusCode, res.body).toBe(201);
      }, 5000);
      expect((await write(a.cookie, 'https://shop.a-store.example')).statusCode).toBe(201);
      expect((await write(b.cookie, 'http://shop.a-store.example')).statusCode).toBe(403);
      expect((await second.services.stores.findActiveStoreByDomain('shop.a-store.example'))?.id).toBe(a.id);
    } finally {
      await second.close();
    }
  });
});
