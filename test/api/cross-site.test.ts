import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/**
 * The CSRF check of cookie-authenticated writes compares the full origin (scheme, host, port) of
 * Origin/Referer with PUBLIC_URL's, never with the Host header the client sends.
 */

const PUBLIC_URL = 'https://shop.example.com';
const HOST = 'shop.example.com';
const PASSWORD = 'correct horse battery';

type Headers = Record<string, string>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

describe('dashboard session on an https deployment', () => {
  let app: TestApp;
  let cookie: string;
  let email: string;

  const call = (method: Method, url: string, headers: Headers, payload?: object) =>
    app.server.inject({
      method,
      url,
      headers: { host: HOST, ...headers },
      ...(payload ? { payload } : {}),
    });

  beforeAll(async () => {
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: PUBLIC_URL } });
    const { store } = await createStoreWithKey(app);
    email = `owner.${Date.now()}@example.com`;
    await app.services.stores.createAdminUser({ email, password: PASSWORD, storeSlug: store.slug });
    const res = await call('POST', '/api/admin/auth/login', {}, { email, password: PASSWORD });
    expect(res.statusCode, res.body).toBe(200);
    cookie = String(res.headers['set-cookie']).split(';')[0] as string;
  });
  afterAll(() => app.close());

  const createCategory = (headers: Headers) =>
    call('POST', '/api/v1/categories', { cookie, ...headers }, { name: `c-${Math.random()}` });

  it.each([
    ['the same host over http (a downgraded page)', { origin: `http://${HOST}` }],
    ['the same host on another port', { origin: `https://${HOST}:8443` }],
    ['another host', { origin: 'https://evil.example' }],
    ['a sub-domain', { origin: `https://static.${HOST}` }],
    ['a Referer over http', { referer: `http://${HOST}/admin/products` }],
    ['Origin null and no Referer', { origin: 'null' }],
    ['neither Origin nor Referer (as before)', {}],
  ])('refuses a cookie write from %s: 403 forbidden', async (_case, headers: Headers) => {
    for (const res of [
      await createCategory(headers),
      await call('POST', '/api/admin/auth/logout', { cookie, ...headers }),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
    }
    // The session is still valid: the refused logout did nothing.
    expect((await call('GET', '/api/admin/me', { cookie })).statusCode).toBe(200);
  });

  it.each([
    ['PUBLIC_URL’s origin', { origin: PUBLIC_URL }],
    [
      'the same origin spelled with its default port and capitals',
      { origin: `https://SHOP.example.com:443` },
    ],
    ['a Referer on PUBLIC_URL', { referer: `${PUBLIC_URL}/admin/categories` }],
    ['Origin null with a Referer on PUBLIC_URL', { origin: 'null', referer: `${PUBLIC_URL}/admin` }],
  ])('accepts a cookie write from %s', async (_case, headers: Headers) => {
    const res = await createCategory(headers);
    expect(res.statusCode, res.body).toBe(201);
  });

  it('still lets reads through without an Origin', async () => {
    expect((await call('GET', '/api/v1/categories', { cookie })).statusCode).toBe(200);
  });

  it('refuses a sign-in posted from another origin (login CSRF); one without Origin passes', async () => {
    for (const origin of [`http://${HOST}`, 'https://evil.example', 'null']) {
      const res = await call('POST', '/api/admin/auth/login', { origin }, { email, password: PASSWORD });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    const ok = await call(
      'POST',
      '/api/admin/auth/login',
      { origin: PUBLIC_URL },
      { email, password: PASSWORD },
    );
    expect(ok.statusCode).toBe(200);
  });
});

describe('a loopback PUBLIC_URL', () => {
  let app: TestApp;
  let cookie: string;
  beforeAll(async () => {
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: 'http://localhost:3000' } });
    const { store } = await createStoreWithKey(app);
    const email = `owner.${Date.now()}@example.com`;
    await app.services.stores.createAdminUser({ email, password: PASSWORD, storeSlug: store.slug });
    const res = await app.server.inject({
      method: 'POST',
      url: '/api/admin/auth/login',
      payload: { email, password: PASSWORD },
    });
    cookie = String(res.headers['set-cookie']).split(';')[0] as string;
  });
  afterAll(() => app.close());

  it('trusts the other loopback names on the same scheme and port, nothing else', async () => {
    const write = (origin: string) =>
      app.server.inject({
        method: 'POST',
        url: '/api/v1/categories',
        headers: { cookie, origin, host: '127.0.0.1:3000' },
        payload: { name: `c-${Math.random()}` },
      });
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000']) {
      expect((await write(origin)).statusCode, origin).toBe(201);
    }
    for (const origin of ['http://127.0.0.1:3001', 'https://127.0.0.1:3000', 'http://192.168.1.5:3000']) {
      expect((await write(origin)).statusCode, origin).toBe(403);
    }
  });
});

describe('customer session cookie on an https deployment', () => {
  let app: TestApp;
  let smtp: SmtpCatcher;
  let cookie: string;

  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    app = await buildTestApp({ config: { ...UNLIMITED, smtpUrl: smtp.url, publicUrl: PUBLIC_URL } });
    const { store } = await createStoreWithKey(app);
    const email = `shopper.${Date.now()}@example.com`;
    const requested = await app.server.inject({
      method: 'POST',
      url: `/api/storefront/${store.slug}/auth/request-code`,
      payload: { email },
    });
    expect(requested.statusCode).toBe(202);
    const mail = await smtp.waitFor((m) => (m.to ?? '').includes(email));
    const code = mail.text.match(/\b(\d{6})\b/)?.[1] as string;
    const verified = await app.server.inject({
      method: 'POST',
      url: `/api/storefront/${store.slug}/auth/verify`,
      payload: { email, code },
    });
    expect(verified.statusCode, verified.body).toBe(200);
    cookie = String(verified.headers['set-cookie']).split(';')[0] as string;
  });
  afterAll(async () => {
    await app.close();
    await smtp.close();
  });

  const update = (headers: Headers) =>
    app.server.inject({
      method: 'PUT',
      url: '/api/customer/update',
      headers: { host: HOST, cookie, ...headers },
      payload: { firstName: 'Ada' },
    });

  it('refuses a cookie write from the same host over http, or another port; accepts PUBLIC_URL', async () => {
    for (const origin of [`http://${HOST}`, `https://${HOST}:8443`]) {
      const res = await update({ origin });
      expect(res.statusCode, origin).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
    }
    expect((await update({})).statusCode).toBe(403);
    expect((await update({ origin: PUBLIC_URL })).statusCode).toBe(200);
  });
});
