import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOMAIN_CHECKS_PER_MINUTE } from '../../src/modules/stores/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * Contract §14, custom domains over HTTPS: `GET /api/operator/domains/check?domain=` answers 200
 * for an active or suspended store's custom domain and 404 for any other name, the question Caddy's
 * on_demand_tls `ask` puts before it requests a certificate. No authentication; limited per address.
 */

const PUBLIC_URL = 'https://emporium.example.com';
const CHECK = '/api/operator/domains/check';

/** The server under test, started after `seed` wrote the stores: it knows them from its first load. */
let app: TestApp;
let seed: TestApp;
let addresses = 0;
/** A client address of its own per test, so the per-address limit counts each test apart. */
const nextAddress = () => `10.77.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;

function check(query: string, remoteAddress = nextAddress(), target: TestApp = app) {
  return target.server.inject({ method: 'GET', url: `${CHECK}${query}`, remoteAddress });
}
const ask = (domain: string, remoteAddress?: string, target?: TestApp) =>
  check(`?domain=${encodeURIComponent(domain)}`, remoteAddress, target);

/** A store with this custom domain, then put in `status` by SQL (as another process would). */
async function storeWithDomain(on: TestApp, domain: string, status = 'active') {
  const { store } = await createStoreWithKey(on);
  await on.services.stores.updateSettings(store.id, { custom_domain: domain });
  if (status !== 'active')
    await sql`UPDATE stores SET status = ${status} WHERE id = ${store.id}`.execute(on.database.db);
  return store;
}

beforeAll(async () => {
  seed = await buildTestApp({ config: { publicUrl: PUBLIC_URL } });
  await storeWithDomain(seed, 'shop.active-store.example');
  await storeWithDomain(seed, 'shop.suspended-store.example', 'suspended');
  await storeWithDomain(seed, 'shop.deleting-store.example', 'deleting');
  await storeWithDomain(seed, 'shop.disabled-store.example', 'disabled');
  await storeWithDomain(seed, 'xn--bcher-kva.example');
  app = await buildTestApp({ testDatabase: seed.testDatabase, config: { publicUrl: PUBLIC_URL } });
  // The directory loads in the background at start (a database down must not stop the server).
  for (let waited = 0; (await ask('shop.active-store.example')).statusCode !== 200; waited += 50) {
    if (waited > 10_000) throw new Error('the domains were not loaded within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});
afterAll(async () => {
  await app?.close();
  await seed?.close();
});

describe('GET /api/operator/domains/check', () => {
  it("answers 200 for an active store's domain, with the name alone, and no credentials", async () => {
    const res = await ask('shop.active-store.example');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ data: { domain: 'shop.active-store.example' } });
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it('matches in any case and with a trailing dot, answering the name as stored', async () => {
    for (const name of [
      'SHOP.Active-Store.EXAMPLE',
      'shop.active-store.example.',
      'Shop.Active-Store.Example.',
    ]) {
      const res = await ask(name);
      expect(res.statusCode, name).toBe(200);
      expect(res.json().data.domain).toBe('shop.active-store.example');
    }
  });

  it('matches an internationalised name in either form', async () => {
    for (const name of ['bücher.example', 'BÜCHER.example.', 'xn--bcher-kva.example']) {
      const res = await ask(name);
      expect(res.statusCode, name).toBe(200);
      expect(res.json().data.domain).toBe('xn--bcher-kva.example');
    }
  });

  it("answers 200 for a suspended store's domain (its closed page is served over HTTPS)", async () => {
    expect((await ask('shop.suspended-store.example')).statusCode).toBe(200);
  });

  it.each([
    'shop.deleting-store.example',
    'shop.disabled-store.example',
    'unknown.example',
    'active-store.example',
    'www.shop.active-store.example',
    'emporium.example.com',
    'localhost.example',
  ])('answers 404 not_found for %s, in the error envelope', async (name) => {
    const res = await ask(name);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      error: expect.objectContaining({ code: 'not_found', message: 'custom domain not found' }),
    });
    expect(res.body).not.toMatch(/store-|slug/);
  });

  it.each([
    ['', /domain/],
    ['?domain=', /domain/],
    ['?domain=shop.active-store.example:443', /port/],
    ['?domain=shop.active-store.example:', /port/],
    ['?domain=127.0.0.1', /IP address/],
    ['?domain=%5B%3A%3A1%5D', /IP address/],
    ['?domain=shop', /host name/],
    ['?domain=shop..example', /host name/],
    ['?domain=shop.active-store.example..', /host name/],
    ['?domain=.shop.active-store.example', /host name/],
    ['?domain=%20shop.active-store.example', /host name/],
    ['?domain=https%3A%2F%2Fshop.active-store.example', /host name/],
    ['?domain=shop.active-store.example%2Fpath', /host name/],
    ['?domain=shop.active-store.example%00', /NUL/],
    ['?domain=%3Cscript%3Ealert(1)%3C%2Fscript%3E', /host name/],
    ["?domain='%20OR%201%3D1%20--", /host name/],
    ['?domain=shop_x.example', /host name/],
    [`?domain=${'a'.repeat(64)}.example`, /host name/],
    [`?domain=${'a.'.repeat(150)}example`, /domain/],
    ['?domain=a.example&domain=b.example', /domain/],
    ['?domain[]=x', /domain/],
  ])('refuses %s with 400 invalid_request naming domain', async (query, reason) => {
    const res = await check(query);
    expect(res.statusCode, res.body).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(reason);
  });

  it('ignores other parameters, as every query string does', async () => {
    expect((await check('?domain=shop.active-store.example&token=x')).statusCode).toBe(200);
  });

  it('names the field and says why for a malformed name', async () => {
    const res = await ask('shop.active-store.example:8443');
    expect(res.json().error.details).toEqual([{ field: 'domain', message: expect.stringMatching(/port/) }]);
  });

  it('follows a change of the domain in this process at once', async () => {
    const store = await storeWithDomain(app, 'first.moving-store.example');
    expect((await ask('first.moving-store.example')).statusCode).toBe(200);
    await app.services.stores.updateSettings(store.id, { custom_domain: 'second.moving-store.example' });
    expect((await ask('first.moving-store.example')).statusCode).toBe(404);
    expect((await ask('second.moving-store.example')).statusCode).toBe(200);
    await app.services.stores.updateSettings(store.id, { custom_domain: null });
    expect((await ask('second.moving-store.example')).statusCode).toBe(404);
  });

  it('follows suspension, unsuspension and deletion through the store lifecycle at once', async () => {
    const store = await storeWithDomain(app, 'leaving.example');
    const lifecycle = app.services.storeLifecycle;
    await lifecycle.suspend(store.id, 'unpaid invoices');
    expect((await ask('leaving.example')).statusCode).toBe(200);
    await lifecycle.unsuspend(store.id);
    expect((await ask('leaving.example')).statusCode).toBe(200);
    await lifecycle.requestDeletion(store.id);
    expect((await ask('leaving.example')).statusCode).toBe(404);
  });

  it('answers a burst from one address up to its limit, then 429 with Retry-After; others go on', async () => {
    const address = nextAddress();
    const burst = DOMAIN_CHECKS_PER_MINUTE + 30;
    const answers = await Promise.all(
      Array.from({ length: burst }, (_, i) =>
        i % 3 === 0 ? ask(`nobody-${i}.example`, address) : ask('shop.active-store.example', address),
      ),
    );
    const statuses = answers.map((res) => res.statusCode);
    expect(statuses.filter((s) => s === 429)).toHaveLength(burst - DOMAIN_CHECKS_PER_MINUTE);
    expect(statuses.every((s) => [200, 404, 429].includes(s))).toBe(true);
    const refused = answers.find((res) => res.statusCode === 429);
    expect(refused?.json().error.code).toBe('rate_limited');
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Malformed questions count too, and are refused as well past the limit.
    expect((await check('?domain=bad', address)).statusCode).toBe(429);
    expect((await ask('shop.active-store.example', nextAddress())).statusCode).toBe(200);
  });

  it('is one operation of the API description, tag Operator, declaring every status it answers', async () => {
    const document = (await app.server.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = document.paths[CHECK]?.get;
    expect(operation).toMatchObject({ operationId: 'checkCustomDomain', tags: ['Operator'], security: [] });
    expect(Object.keys(operation.responses)).toEqual(
      expect.arrayContaining(['200', '400', '404', '429', '503']),
    );
  });
});
