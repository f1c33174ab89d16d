import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { serveBytes, solidPng, startTestHost, type TestHost } from '../helpers/image-host.js';

/**
 * Issue 29, item 12: every page of the shop names an icon (`<link rel="icon">`), and the icon answers
 * — the store's logo when it has one, a default drawn in the store's colour otherwise — at
 * `/shop/{slug}/favicon.ico` and at `/favicon.ico` on the store's own domain, so browsers log no 404.
 */

let app: TestApp;
let logoHost: TestHost;
let plain: { id: string; slug: string };
let branded: { id: string; slug: string };
let productSlug: string;
const DOMAIN = `icon-${randomBytes(3).toString('hex')}.example.com`;

beforeAll(async () => {
  logoHost = await startTestHost({ '/logo.png': serveBytes(await solidPng(64, 64), 'image/png') });
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: 'http://localhost:3000' } });
  const make = async (name: string) => {
    const store = await app.services.stores.createStore({
      slug: `icon-${randomBytes(4).toString('hex')}`,
      name,
    });
    return { id: store.id, slug: store.slug };
  };
  plain = await make('<Zebra & Co>');
  branded = await make('Branded');
  await app.services.stores.updateSettings(plain.id, {
    colors: { primary: '#0a7d45' },
    custom_domain: DOMAIN,
  });
  await app.services.stores.updateSettings(branded.id, { logo: logoHost.url('/logo.png') });
  const api = client(app, (await app.services.stores.createApiKey(plain.id, { scopes: 'all' })).key);
  productSlug = (await createProduct(api, { name: 'Icon Mug', price: '5.00' })).slug;
});
afterAll(async () => {
  await app?.close();
  await logoHost?.close();
});

const get = (url: string, host = 'localhost:3000') =>
  app.server.inject({ method: 'GET', url, headers: { host } });

function expectDefaultIcon(res: Awaited<ReturnType<typeof get>>, label: string) {
  expect(res.statusCode, label).toBe(200);
  expect(res.headers['content-type'], label).toMatch(/^image\/svg\+xml/);
  expect(res.headers['cache-control'], label).toMatch(/^public, max-age=\d+/);
  expect(res.body, label).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  // The store's colour and its initial, escaped (the name starts with `<`).
  expect(res.body, label).toContain('fill="#0a7d45"');
  expect(res.body, label).toContain('>&lt;</text>');
  expect(res.body, label).not.toContain('<Zebra');
}

describe('the shop icon', () => {
  it('a store without a logo gets a default icon in its colour, on the platform host and its domain', async () => {
    expectDefaultIcon(await get(`/shop/${plain.slug}/favicon.ico`), 'platform host');
    expectDefaultIcon(await get('/favicon.ico', DOMAIN), 'custom domain');
  });

  it('a store with a logo sends the browser to its logo, which is an image', async () => {
    const res = await get(`/shop/${branded.slug}/favicon.ico`);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(logoHost.url('/logo.png'));
    const image = await fetch(res.headers.location as string);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
  });

  it('a logo stored before the http(s) check is not followed: the default icon instead', async () => {
    const { slug, id } = await (async () => {
      const store = await app.services.stores.createStore({
        slug: `icon-${randomBytes(4).toString('hex')}`,
        name: 'Old',
      });
      return { slug: store.slug, id: store.id };
    })();
    await sql`UPDATE stores SET logo = 'javascript:alert(1)' WHERE id = ${id}`.execute(app.database.db);
    const res = await get(`/shop/${slug}/favicon.ico`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers.location).toBeUndefined();
  });

  it('every page names the icon with <link rel="icon">, on both hosts', async () => {
    const pages = [
      '/',
      '/products',
      `/products/${productSlug}`,
      '/cart',

      '/account/sign-in',
      '/no-such-page',
    ];
    for (const [host, base] of [
      ['localhost:3000', `/shop/${plain.slug}`],
      [DOMAIN, ''],
    ] as const) {
      for (const path of pages) {
        const res = await get(`${base}${path}`, host);
        expect(res.body, `${host} ${path}`).toContain(`<link rel="icon" href="${base}/favicon.ico"/>`);
      }
    }
  });

  it('a page without a store asks for no icon it cannot get', async () => {
    const res = await get('/shop/no-such-store-here/');
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('<link rel="icon" href="data:,">');
  });

  it('an unknown store has no icon (404)', async () => {
    expect((await get('/shop/no-such-store-here/favicon.ico')).statusCode).toBe(404);
  });
});
