import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * Issue 29, item 7: a store's logo is an http(s) URL (the store's own media are served on one) or
 * nothing: anything else is 400 naming `logo` on write, and a value stored before that check is never
 * drawn into a page (`<img>`, `og:image`, JSON-LD).
 */

const PUBLIC_URL = 'http://localhost:3000';
const PASSWORD = 'correct horse battery';

let app: TestApp;
let storeId: string;
let slug: string;
let cookie: string;
let productSlug: string;

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: PUBLIC_URL } });
  const { store, key } = await createStoreWithKey(app);
  storeId = store.id;
  slug = store.slug;
  productSlug = (await createProduct(client(app, key), { name: 'Logo Mug', price: '9.00' })).slug;
  const email = `owner.${slug}@example.com`;
  await app.services.stores.createAdminUser({ email, password: PASSWORD, storeSlug: slug });
  const res = await app.server.inject({
    method: 'POST',
    url: '/api/admin/auth/login',
    payload: { email, password: PASSWORD },
  });
  cookie = String(res.headers['set-cookie']).split(';')[0] as string;
});
afterAll(() => app.close());

const setLogo = (logo: unknown) =>
  app.server.inject({
    method: 'PATCH',
    url: '/api/admin/store',
    headers: { cookie, origin: PUBLIC_URL },
    payload: { logo },
  });
const storedLogo = async () =>
  (await app.server.inject({ method: 'GET', url: '/api/admin/store', headers: { cookie } })).json().data.logo;

describe('the store logo', () => {
  it.each([
    ['https://cdn.example.com/brand/logo.png', 'https://cdn.example.com/brand/logo.png'],
    ['  http://cdn.example.com/logo.svg ', 'http://cdn.example.com/logo.svg'],
    [`${PUBLIC_URL}/media/ab/cd/logo.webp`, `${PUBLIC_URL}/media/ab/cd/logo.webp`],
  ])('accepts %s', async (logo, stored) => {
    const res = await setLogo(logo);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.logo).toBe(stored);
  });

  it.each([
    'javascript:alert(document.cookie)',
    ' JavaScript:alert(1)',
    'data:image/svg+xml,<svg onload=alert(1)>',
    'vbscript:msgbox(1)',
    'ftp://files.example.com/logo.png',
    '//evil.example/logo.png',
    'logo.png',
    'https://',
    'https://user:secret@cdn.example.com/logo.png',
  ])('refuses %s: 400 naming logo, nothing changed', async (logo) => {
    expect((await setLogo('https://cdn.example.com/kept.png')).statusCode).toBe(200);
    const res = await setLogo(logo);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(res.json().error.details).toEqual([{ field: 'logo', message: expect.stringContaining('http') }]);
    expect(await storedLogo()).toBe('https://cdn.example.com/kept.png');
  });

  it('null or empty clears it', async () => {
    expect((await setLogo('https://cdn.example.com/kept.png')).statusCode).toBe(200);
    expect((await setLogo(null)).json().data.logo).toBeNull();
    expect((await setLogo('https://cdn.example.com/kept.png')).statusCode).toBe(200);
    expect((await setLogo('  ')).json().data.logo).toBeNull();
  });

  it('a logo stored before the check that is not http(s) is never drawn into a page', async () => {
    const hostile = 'javascript:alert(document.cookie)';
    await sql`UPDATE stores SET logo = ${hostile} WHERE id = ${storeId}`.execute(app.database.db);
    // A settings change empties the store caches, as the next one would within 5 s.
    expect(
      (
        await app.server.inject({
          method: 'PATCH',
          url: '/api/admin/store',
          headers: { cookie, origin: PUBLIC_URL },
          payload: { name: 'Logo Store' },
        })
      ).statusCode,
    ).toBe(200);
    for (const path of ['/', '/products', `/products/${productSlug}`, '/cart', '/no-such-page']) {
      const res = await app.server.inject({ method: 'GET', url: `/shop/${slug}${path}` });
      expect(res.body, path).toContain('Logo Store');
      expect(res.body, path).not.toMatch(/javascript:/i);
    }
    // Apps draw the storefront config's logo: it is not handed out either.
    const config = await app.server.inject({ method: 'GET', url: `/api/storefront/${slug}/config` });
    expect(config.statusCode).toBe(200);
    expect(config.json().data.logo).toBeNull();
  });

  it('a stored http(s) logo is drawn in the header and shared as og:image', async () => {
    expect((await setLogo('https://cdn.example.com/brand.png')).statusCode).toBe(200);
    const res = await app.server.inject({ method: 'GET', url: `/shop/${slug}/` });
    expect(res.body).toContain('<img src="https://cdn.example.com/brand.png"');
    expect(res.body).toContain('<meta property="og:image" content="https://cdn.example.com/brand.png"/>');
  });
});
