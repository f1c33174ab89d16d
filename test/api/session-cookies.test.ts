import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * Every route that reads a session cookie (emporium_session, emporium_admin) must treat a cookie it
 * cannot use as no session: 401 `unauthorized` in the error envelope, never a 5xx.
 */
let app: TestApp;
let slug: string;
const ORIGIN = 'http://localhost:3000';

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN } });
  slug = (await createStoreWithKey(app)).store.slug;
});
afterAll(() => app.close());

type Method = 'GET' | 'POST' | 'PUT';
const surfaces: { cookie: string; method: Method; path: string; payload?: object }[] = [
  { cookie: 'emporium_session', method: 'GET', path: '/api/customer/me' },
  { cookie: 'emporium_session', method: 'GET', path: '/api/customer/orders' },
  { cookie: 'emporium_session', method: 'POST', path: '/api/customer/logout' },
  { cookie: 'emporium_session', method: 'PUT', path: '/api/customer/update', payload: { firstName: 'E' } },
  { cookie: 'emporium_session', method: 'GET', path: '/api/mobile/notifications/preferences' },
  {
    cookie: 'emporium_session',
    method: 'POST',
    path: '/api/mobile/device/register',
    payload: { token: 'device-token', platform: 'ios' },
  },
  { cookie: 'emporium_admin', method: 'GET', path: '/api/admin/me' },
  { cookie: 'emporium_admin', method: 'GET', path: '/api/admin/store' },
  { cookie: 'emporium_admin', method: 'POST', path: '/api/admin/auth/logout' },
  { cookie: 'emporium_admin', method: 'GET', path: '/api/v1/customers' },
  { cookie: 'emporium_admin', method: 'POST', path: '/api/v1/products', payload: { name: 'P' } },
  {
    cookie: 'emporium_admin',
    method: 'PUT',
    path: '/api/storefront/{slug}/app-config',
    payload: { theme: {} },
  },
];

/** Cookie headers a client (or an attacker) may send, for a cookie named `name`. */
const badHeaders = (name: string): [string, string][] => [
  ['bad percent-encoding', `${name}=%E0%A4%A`],
  ['a lone percent sign', `${name}=%`],
  ['a percent sign before non-hex', `${name}=as_%ZZ`],
  ['an encoded NUL', `${name}=cs_%00`],
  ['an empty value', `${name}=`],
  ['a huge value', `${name}=${'a'.repeat(12_000)}`],
  ['a huge badly encoded value', `${name}=${'%E0%A4%A'.repeat(2_000)}`],
  ['duplicate names, both malformed', `${name}=%E0%A4%A; ${name}=%`],
  ['duplicate names, forged then malformed', `${name}=cs_forged; ${name}=%E0%A4%A`],
  ['quoted malformed value', `${name}="%E0%A4%A"`],
  ['malformed among other cookies', `theme=dark; ${name}=%E0%A4%A; lang=en`],
];

describe('malformed session cookies', () => {
  for (const surface of surfaces) {
    it(`${surface.method} ${surface.path} with a malformed ${surface.cookie} is 401`, async () => {
      for (const [what, cookie] of badHeaders(surface.cookie)) {
        const res = await app.server.inject({
          method: surface.method,
          url: surface.path.replace('{slug}', slug),
          headers: { cookie, origin: ORIGIN },
          ...(surface.payload ? { payload: surface.payload } : {}),
        });
        expect(res.statusCode, `${what}: ${res.body}`).toBe(401);
        expect(res.json(), what).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
        expect(res.headers['x-request-id'], what).toBeDefined();
      }
    });
  }

  it('a malformed cookie of another name does not disturb a valid session', async () => {
    const email = `owner.${Date.now()}@example.com`;
    await app.services.stores.createAdminUser({ email, password: 'correct horse battery', storeSlug: slug });
    const login = await app.server.inject({
      method: 'POST',
      url: '/api/admin/auth/login',
      payload: { email, password: 'correct horse battery' },
    });
    expect(login.statusCode, login.body).toBe(200);
    const session = String(login.headers['set-cookie']).split(';')[0] as string;
    const me = await app.server.inject({
      method: 'GET',
      url: '/api/admin/me',
      headers: { cookie: `other=%E0%A4%A; ${session}; emporium_session=%` },
    });
    expect(me.statusCode, me.body).toBe(200);
  });
});
