import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createCategory, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';

let app: TestApp;
let slug: string;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  slug = `frame-${randomBytes(4).toString('hex')}`;
  const store = await app.services.stores.createStore({ slug, name: 'Frame & Co', currency: 'EUR' });
  await app.database.db
    .updateTable('stores')
    .set({ colors: JSON.stringify({ primary: '#123456', accent: 'red;}body{display:none' }) })
    .where('id', '=', store.id)
    .execute();
  const api = client(app, (await app.services.stores.createApiKey(store.id, { scopes: 'all' })).key);
  const category = await createCategory(api, { name: 'Mugs' });
  await createProduct(api, { name: 'Blue Mug', price: '12.50', category_ids: [category.id] });
  await createProduct(api, { name: 'Draft Mug', price: '9.00', status: 'draft' });
});
afterAll(() => app.close());

const get = (url: string, headers: Record<string, string> = {}) =>
  app.server.inject({ method: 'GET', url, headers });

describe('the shop frame', () => {
  it('serves the home page with the store name, its colours, categories and newest products', async () => {
    const res = await get(`/shop/${slug}/`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    expect(res.headers['content-security-policy']).toContain("script-src 'self' https://js.stripe.com");
    const html = res.body;
    expect(html.startsWith('<!doctype html><html lang="en">')).toBe(true);
    expect(html).toContain('<title>Home | Frame &amp; Co</title>');
    expect(html).toContain('--shop-primary:#123456');
    // A colour that is not a hex value never reaches the page's CSS.
    expect(html).not.toContain('display:none');
    expect(html).toContain('Mugs');
    expect(html).toContain('Blue Mug');
    expect(html).toContain('€12.50');
    expect(html).not.toContain('Draft Mug');
    expect(html).toContain(`<link rel="canonical" href="http://localhost:3000/shop/${slug}/"/>`);
    // The stylesheet the client build made is linked, and served for a year.
    const css = html.match(/href="(\/shop-assets\/[^"]+\.css)"/)?.[1];
    expect(css).toBeDefined();
    const asset = await get(css as string);
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('answers 304 to a revalidation with the same ETag', async () => {
    const first = await get(`/shop/${slug}/`);
    const again = await get(`/shop/${slug}/`, { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
  });

  it('redirects the bare shop address to its home page', async () => {
    const res = await get(`/shop/${slug}`);
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe(`/shop/${slug}/`);
  });

  it('draws an unknown page of a shop as a 404 inside the frame, never cached', async () => {
    const res = await get(`/shop/${slug}/no-such-page`);
    expect(res.statusCode).toBe(404);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.body).toContain('Page not found');
    expect(res.body).toContain('Frame &amp; Co');
  });

  it('answers an unknown store with a 404 page of its own', async () => {
    for (const url of ['/shop/no-such-store/', '/shop/no-such-store/products']) {
      const res = await get(url);
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('Shop not found');
    }
  });

  it('does not serve the build manifest or paths outside the assets', async () => {
    for (const url of [
      '/shop-assets/.vite/manifest.json',
      '/shop-assets/../package.json',
      '/shop-assets/nope.js',
    ]) {
      expect((await get(url)).statusCode).toBe(404);
    }
  });

  it('refuses a form sent from another site', async () => {
    const res = await app.server.inject({
      method: 'POST',
      url: `/shop/${slug}/`,
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'a=1',
    });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('another site');
  });
});
