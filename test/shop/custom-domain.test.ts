import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';

/** Contract §10: a request whose Host is a store's custom domain gets that store's shop at `/`. */
let app: TestApp;
let slug: string;
let storeId: string;
const DOMAIN = `shop-${randomBytes(3).toString('hex')}.example.com`;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  slug = `domain-${randomBytes(4).toString('hex')}`;
  const store = await app.services.stores.createStore({ slug, name: 'Domain Shop', currency: 'USD' });
  storeId = store.id;
  const api = client(app, (await app.services.stores.createApiKey(store.id, { scopes: 'all' })).key);
  await createProduct(api, { name: 'Harbour Lamp', price: '40.00' });
  await app.services.stores.updateSettings(store.id, { custom_domain: DOMAIN });
});
afterAll(() => app.close());

const onHost = (url: string, host: string) => app.server.inject({ method: 'GET', url, headers: { host } });

describe('the shop on its own domain', () => {
  it('serves the home page at / with links and canonical URLs on that domain', async () => {
    const res = await onHost('/', `${DOMAIN.toUpperCase()}:443`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Harbour Lamp');
    expect(res.body).toContain(`<link rel="canonical" href="http://${DOMAIN}/"/>`);
    expect(res.body).toContain('href="/products"');
    expect(res.body).not.toContain(`/shop/${slug}`);
  });

  it('serves the shop pages and keeps the API, assets and operations paths', async () => {
    expect((await onHost('/no-such-page', DOMAIN)).body).toContain('Page not found');
    const config = await onHost(`/api/storefront/${slug}/config`, DOMAIN);
    expect(config.statusCode).toBe(200);
    expect(config.json().data.slug).toBe(slug);
    expect((await onHost('/healthz', DOMAIN)).statusCode).toBe(200);
    const css = (await onHost('/', DOMAIN)).body.match(/href="(\/shop-assets\/[^"]+\.css)"/)?.[1] as string;
    expect((await onHost(css, DOMAIN)).statusCode).toBe(200);
  });

  it('leaves the platform address alone, and forgets a domain that is cleared', async () => {
    expect((await onHost(`/shop/${slug}/`, 'localhost:3000')).body).toContain(`/shop/${slug}/products`);
    expect((await onHost('/', 'localhost:3000')).body).not.toContain('Harbour Lamp');
    await app.services.stores.updateSettings(storeId, { custom_domain: null });
    expect((await onHost('/', DOMAIN)).body).not.toContain('Harbour Lamp');
    await app.services.stores.updateSettings(storeId, { custom_domain: DOMAIN });
    expect((await onHost('/', DOMAIN)).body).toContain('Harbour Lamp');
  });
});
