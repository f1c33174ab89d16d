import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';

/**
 * Issue 29, item 2: behind a trusted proxy (TRUST_PROXY=true) the request's host is decided once,
 * and a store's absolute URLs (canonical, og:url, JSON-LD, sitemap, robots) come from its configured
 * domain or PUBLIC_URL, never from a header: a forged `X-Forwarded-Host` must not reach a public,
 * cacheable page.
 */

const PUBLIC_URL = 'https://emporium.example.com';
const DOMAIN = `shop-${randomBytes(3).toString('hex')}.example.com`;
const EVIL = 'evil.example';
/** The hosts a page of the shop may name in an absolute URL. */
const ALLOWED_HOSTS = new Set([DOMAIN, 'emporium.example.com', 'schema.org', 'www.sitemaps.org']);

let app: TestApp;
let slug: string;
let productSlug: string;

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: PUBLIC_URL, trustProxy: true } });
  slug = `fwd-${randomBytes(4).toString('hex')}`;
  const store = await app.services.stores.createStore({ slug, name: 'Forwarded Shop', currency: 'USD' });
  const api = client(app, (await app.services.stores.createApiKey(store.id, { scopes: 'all' })).key);
  productSlug = (await createProduct(api, { name: 'Harbour Lamp', price: '40.00' })).slug;
  await app.services.stores.updateSettings(store.id, { custom_domain: DOMAIN });
});
afterAll(() => app.close());

const get = (url: string, headers: Record<string, string>) =>
  app.server.inject({ method: 'GET', url, headers: { 'x-forwarded-proto': 'https', ...headers } });

/** Every absolute URL a page or file names, as its host. */
function hostsNamed(body: string): string[] {
  return [...body.matchAll(/https?:\/\/([^/"'<>\s\\]+)/g)].map((m) => (m[1] as string).toLowerCase());
}

function expectNoForeignHost(body: string, label: string) {
  expect(body, label).not.toContain(EVIL);
  for (const host of hostsNamed(body)) expect(ALLOWED_HOSTS.has(host), `${label}: ${host}`).toBe(true);
}

const shopPaths = () => ['/', '/products', `/products/${productSlug}`, '/sitemap.xml', '/robots.txt'];

describe('X-Forwarded-Host behind a trusted proxy', () => {
  it.each([[`${DOMAIN}, ${EVIL}`], [`${EVIL}, ${DOMAIN}`], [`${DOMAIN},${EVIL}`], [`${EVIL}`]])(
    'X-Forwarded-Host: %s never puts a forged host into a page of the custom domain',
    async (forwarded) => {
      for (const path of shopPaths()) {
        const res = await get(path, { host: DOMAIN, 'x-forwarded-host': forwarded });
        expect(res.statusCode, path).toBeLessThan(500);
        expectNoForeignHost(res.body, `${forwarded} ${path}`);
        expect(JSON.stringify(res.headers), `${forwarded} ${path} headers`).not.toContain(EVIL);
      }
    },
  );

  it('the store and its URLs agree: a request served as the store’s shop names the store’s domain', async () => {
    for (const forwarded of [`${EVIL}, ${DOMAIN}`, DOMAIN, `${DOMAIN.toUpperCase()}:443`]) {
      const res = await get('/', { host: 'internal:3000', 'x-forwarded-host': forwarded });
      expect(res.statusCode, forwarded).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=30');
      expect(res.body).toContain(`<link rel="canonical" href="https://${DOMAIN}/"/>`);
      expect(res.body).toContain(`<meta property="og:url" content="https://${DOMAIN}/"/>`);
      const product = await get(`/products/${productSlug}`, {
        host: 'internal:3000',
        'x-forwarded-host': forwarded,
      });
      expect(product.body).toContain(`"url":"https://${DOMAIN}/products/${productSlug}"`);
      const sitemap = await get('/sitemap.xml', { host: 'internal:3000', 'x-forwarded-host': forwarded });
      expect(sitemap.body).toContain(`<loc>https://${DOMAIN}/products</loc>`);
      const robots = await get('/robots.txt', { host: 'internal:3000', 'x-forwarded-host': forwarded });
      expect(robots.body).toContain(`Sitemap: https://${DOMAIN}/sitemap.xml`);
    }
  });

  it('a header naming something other than the last proxy’s host does not pick the store', async () => {
    // The value a client can forge comes first when a proxy appends; only the last one routes.
    const res = await get('/', { host: 'internal:3000', 'x-forwarded-host': `${DOMAIN}, ${EVIL}` });
    expect(res.body).not.toContain('Harbour Lamp');
    expectNoForeignHost(res.body, 'forged first value');
  });

  it('the platform address draws URLs from PUBLIC_URL whatever the headers say', async () => {
    for (const headers of [
      { host: EVIL } as Record<string, string>,
      { host: 'internal:3000', 'x-forwarded-host': EVIL },
      { host: 'internal:3000', 'x-forwarded-host': `emporium.example.com, ${EVIL}` },
    ]) {
      for (const path of shopPaths()) {
        const res = await get(`/shop/${slug}${path}`, headers);
        expect(res.statusCode, path).toBe(200);
        expectNoForeignHost(res.body, `${JSON.stringify(headers)} ${path}`);
      }
      const home = await get(`/shop/${slug}/`, headers);
      expect(home.body).toContain(`<link rel="canonical" href="${PUBLIC_URL}/shop/${slug}/"/>`);
    }
  });
});
