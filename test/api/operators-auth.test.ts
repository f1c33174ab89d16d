import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/** Operators' sign-in (contract §14): its own cookie, limits, CSRF, and no crossing with /api/admin or /api/v1. */
let app: TestApp;
const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'operator password 1';
const EMAIL = `ops.${Date.now()}@example.com`;
let operatorId: string;
let adminCookie: string;
let storeKey: string;

type Method = 'GET' | 'POST' | 'DELETE';
const request = (
  method: Method,
  url: string,
  headers: Record<string, string> = {},
  payload?: unknown,
  ip = '10.9.0.1',
) =>
  app.server.inject({
    method,
    url,
    headers,
    remoteAddress: ip,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

async function operatorSignIn(ip = '10.9.0.1') {
  const res = await request('POST', '/api/operator/auth/login', {}, { email: EMAIL, password: PASSWORD }, ip);
  expect(res.statusCode, res.body).toBe(200);
  const setCookie = String(res.headers['set-cookie']);
  return { res, setCookie, cookie: setCookie.split(';')[0] as string };
}

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN } });
  operatorId = (await app.services.operators.createOperator({ email: EMAIL, password: PASSWORD })).id;
  const { store, key } = await createStoreWithKey(app);
  storeKey = key;
  const adminEmail = `owner.${Date.now()}@example.com`;
  await app.services.stores.createAdminUser({ email: adminEmail, password: PASSWORD, storeSlug: store.slug });
  const login = await request('POST', '/api/admin/auth/login', {}, { email: adminEmail, password: PASSWORD });
  expect(login.statusCode, login.body).toBe(200);
  adminCookie = String(login.headers['set-cookie']).split(';')[0] as string;
});
afterAll(() => app.close());

describe('operator sign-in', () => {
  it('signs in (Strict, HttpOnly cookie, 12 h), me, then logout ends the session', async () => {
    const { res, setCookie, cookie } = await operatorSignIn();
    expect(res.json()).toEqual({ data: { operator: { id: operatorId, email: EMAIL } } });
    expect(setCookie).toMatch(
      /^emporium_operator=os_[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=(\d+)$/,
    );
    const maxAge = Number(/Max-Age=(\d+)/.exec(setCookie)?.[1]);
    expect(maxAge).toBeGreaterThan(12 * 3600 - 60);
    expect(maxAge).toBeLessThanOrEqual(12 * 3600);
    const me = await request('GET', '/api/operator/me', { cookie });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({ data: { operator: { id: operatorId, email: EMAIL } } });
    // Only the token's SHA-256 is stored.
    const token = cookie.split('=')[1] as string;
    const stored = await app.database.db
      .selectFrom('operator_sessions')
      .select(['token_hash', 'expires_at'])
      .where('operator_id', '=', operatorId)
      .execute();
    expect(stored.some((s) => s.token_hash.toString('hex').length === 64)).toBe(true);
    expect(stored.some((s) => s.token_hash.toString('utf8').includes(token))).toBe(false);

    const out = await request('POST', '/api/operator/auth/logout', { cookie, origin: ORIGIN });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^emporium_operator=; .*Max-Age=0/);
    expect((await request('GET', '/api/operator/me', { cookie })).statusCode).toBe(401);
  });

  it('the e-mail is matched in any case; an expired session opens nothing', async () => {
    const res = await request(
      'POST',
      '/api/operator/auth/login',
      {},
      { email: EMAIL.toUpperCase(), password: PASSWORD },
      '10.9.0.2',
    );
    expect(res.statusCode).toBe(200);
    const cookie = String(res.headers['set-cookie']).split(';')[0] as string;
    await app.database.db
      .updateTable('operator_sessions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('operator_id', '=', operatorId)
      .execute();
    const me = await request('GET', '/api/operator/me', { cookie });
    expect(me.statusCode).toBe(401);
    expect(me.json().error.code).toBe('unauthorized');
  });

  it('a wrong password and an unknown e-mail get the same 401', async () => {
    const wrong = await request(
      'POST',
      '/api/operator/auth/login',
      {},
      { email: EMAIL, password: 'nope' },
      '10.9.1.1',
    );
    const unknown = await request(
      'POST',
      '/api/operator/auth/login',
      {},
      { email: 'nobody@example.com', password: 'nope' },
      '10.9.1.1',
    );
    expect([wrong.statusCode, unknown.statusCode]).toEqual([401, 401]);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('bad bodies are 400 naming the field; a non-JSON body is 415', async () => {
    for (const body of [
      {},
      { email: EMAIL },
      { email: EMAIL, password: '' },
      { email: EMAIL, password: 'x', extra: 1 },
    ]) {
      const res = await request('POST', '/api/operator/auth/login', {}, body, '10.9.1.2');
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    const text = await request(
      'POST',
      '/api/operator/auth/login',
      { 'content-type': 'text/plain' },
      'x',
      '10.9.1.2',
    );
    expect(text.statusCode).toBe(415);
  });

  it('attempts are limited per e-mail: of a burst of 15, 10 are answered and 5 are 429', async () => {
    const victim = `victim.${Date.now()}@example.com`;
    const attempt = async (ip: string) =>
      (await request('POST', '/api/operator/auth/login', {}, { email: victim, password: 'x' }, ip))
        .statusCode;
    // Each attempt is counted before its scrypt: a burst from many addresses gets no more tries.
    const burst = await Promise.all(Array.from({ length: 15 }, (_, i) => attempt(`10.9.2.${i}`)));
    expect(burst.filter((code) => code === 401)).toHaveLength(10);
    expect(burst.filter((code) => code === 429)).toHaveLength(5);
    // A fresh address changes nothing for that e-mail: refused, with the time to wait.
    const limited = await request(
      'POST',
      '/api/operator/auth/login',
      {},
      { email: victim, password: 'x' },
      '10.9.2.200',
    );
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The operator's own e-mail is not affected by another e-mail's limit.
    expect((await operatorSignIn('10.9.2.201')).res.statusCode).toBe(200);
  }, 120_000);
});

describe('cross-site requests', () => {
  it('a sign-in from a foreign origin is refused; scripts without Origin are let through', async () => {
    const res = await request(
      'POST',
      '/api/operator/auth/login',
      { origin: 'https://evil.example' },
      { email: EMAIL, password: PASSWORD },
      '10.9.4.1',
    );
    expect(res.statusCode).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
    const withOrigin = await request(
      'POST',
      '/api/operator/auth/login',
      { origin: ORIGIN },
      { email: EMAIL, password: PASSWORD },
      '10.9.4.1',
    );
    expect(withOrigin.statusCode).toBe(200);
  });

  it('every write with the cookie needs a trusted Origin (or Referer); reads do not', async () => {
    const { cookie } = await operatorSignIn('10.9.4.2');
    const storeId = (await createStoreWithKey(app)).store.id;
    const writes: [Method, string, unknown][] = [
      ['POST', `/api/operator/stores/${storeId}/suspend`, { reason: 'spam' }],
      ['POST', `/api/operator/stores/${storeId}/unsuspend`, undefined],
      ['DELETE', `/api/operator/stores/${storeId}`, undefined],
      ['POST', '/api/operator/auth/logout', undefined],
    ];
    for (const [method, url, body] of writes) {
      for (const headers of [
        {} as Record<string, string>,
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { referer: 'https://evil.example/x' },
      ]) {
        const res = await request(method, url, { cookie, ...headers }, body);
        expect(res.statusCode, `${method} ${url} ${JSON.stringify(headers)}`).toBe(403);
        expect(res.json().error.code).toBe('forbidden');
      }
    }
    // Nothing happened: the store is still active and the session still open.
    const page = await request('GET', `/api/operator/stores/${storeId}`, { cookie });
    expect(page.statusCode).toBe(200);
    expect(page.json().data.status).toBe('active');
    const viaReferer = await request(
      'POST',
      `/api/operator/stores/${storeId}/suspend`,
      { cookie, referer: `${ORIGIN}/operator/stores/${storeId}` },
      { reason: 'spam' },
    );
    expect(viaReferer.statusCode, viaReferer.body).toBe(200);
  });
});

describe('the operator cookie and the dashboard cookie are separate', () => {
  it('a dashboard session or an API key opens nothing under /api/operator', async () => {
    for (const headers of [
      { cookie: adminCookie } as Record<string, string>,
      { 'x-api-key': storeKey },
      // The dashboard's token under the operator's cookie name is not a session either.
      { cookie: `emporium_operator=${adminCookie.split('=')[1]}` },
      { cookie: 'emporium_operator=os_forged' },
    ]) {
      for (const url of ['/api/operator/me', '/api/operator/stores']) {
        const res = await request('GET', url, headers);
        expect(res.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.json().error.code).toBe('unauthorized');
      }
    }
    expect((await request('GET', '/api/admin/me', { cookie: adminCookie })).statusCode).toBe(200);
  });

  it('an operator session opens nothing under /api/admin or /api/v1', async () => {
    const { cookie } = await operatorSignIn('10.9.5.1');
    const token = cookie.split('=')[1] as string;
    for (const headers of [{ cookie }, { cookie: `emporium_admin=${token}` }]) {
      for (const url of ['/api/admin/me', '/api/admin/store', '/api/v1/products', '/api/v1/orders']) {
        const res = await request('GET', url, headers);
        expect(res.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(401);
      }
    }
    expect((await request('GET', '/api/operator/me', { cookie })).statusCode).toBe(200);
  });

  it('over https the cookie is Secure', async () => {
    const secure = await buildTestApp({
      testDatabase: app.testDatabase,
      config: { ...UNLIMITED, publicUrl: 'https://platform.example.test' },
    });
    try {
      const res = await secure.server.inject({
        method: 'POST',
        url: '/api/operator/auth/login',
        payload: { email: EMAIL, password: PASSWORD },
        remoteAddress: '10.9.6.1',
      });
      expect(res.statusCode).toBe(200);
      expect(String(res.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/);
    } finally {
      await secure.close();
    }
  });
});
