import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_STORE_COLORS } from '../../src/modules/stores/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * Issue 30 item 2: one set of default colours for the shop, the storefront config and the dashboard
 * (told through `default_colors`), and a settings save writes only the colours it names.
 */
let app: TestApp;
const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN } });
});
afterAll(() => app.close());

/** A fresh store (no colours set), a signed-in dashboard session, and what each audience draws. */
async function storeWithSession() {
  const { store } = await createStoreWithKey(app);
  const email = `owner.${store.slug}@example.com`;
  await app.services.stores.createAdminUser({ email, password: PASSWORD, storeSlug: store.slug });
  const login = await app.server.inject({
    method: 'POST',
    url: '/api/admin/auth/login',
    payload: { email, password: PASSWORD },
  });
  expect(login.statusCode, login.body).toBe(200);
  const cookie = String(login.headers['set-cookie']).split(';')[0] as string;
  const settings = async () =>
    (await app.server.inject({ method: 'GET', url: '/api/admin/store', headers: { cookie } })).json().data;
  const patch = (payload: Record<string, unknown>) =>
    app.server.inject({
      method: 'PATCH',
      url: '/api/admin/store',
      headers: { cookie, origin: ORIGIN },
      payload,
    });
  const configColors = async () =>
    (await client(app).get(`/api/storefront/${store.slug}/config`)).json().data.colors;
  return { store, settings, patch, configColors, shopColors: () => shopColors(store.slug) };
}

/** The CSS variables the shop's home page sets on :root, as { primary: '#…', … }. */
async function shopColors(slug: string): Promise<Record<string, string>> {
  const res = await app.server.inject({ method: 'GET', url: `/shop/${slug}/` });
  expect(res.statusCode).toBe(200);
  const rule = res.body.match(/<style>:root\{([^}]*)\}<\/style>/)?.[1];
  expect(rule, 'the frame sets the colours').toBeDefined();
  return Object.fromEntries(
    (rule as string).split(';').map((d) => {
      const [name, value] = d.split(':') as [string, string];
      return [name.replace(/^--shop-/, ''), value];
    }),
  );
}

describe('default store colours', () => {
  it('are the same set for the shop, the storefront config and the dashboard', async () => {
    const { settings, configColors, shopColors } = await storeWithSession();
    const answer = await settings();
    expect(answer.colors).toEqual({});
    expect(answer.default_colors).toEqual(DEFAULT_STORE_COLORS);
    expect(await configColors()).toEqual(answer.default_colors);
    expect(await shopColors()).toEqual(answer.default_colors);
  });

  it('are defined nowhere in the shop stylesheets (the frame draws the one set)', async () => {
    const { store } = await storeWithSession();
    const html = (await app.server.inject({ method: 'GET', url: `/shop/${store.slug}/` })).body;
    const sheets = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1] as string);
    expect(sheets.length).toBeGreaterThan(0);
    for (const href of sheets) {
      const css = (await app.server.inject({ method: 'GET', url: href })).body;
      expect(css, href).not.toMatch(/--shop-(primary|secondary|accent|background|text)\s*:/);
    }
  });

  it('stay unset when a save names no colour, and a colour set can be reset to the default', async () => {
    const { settings, patch, configColors, shopColors } = await storeWithSession();
    const before = await shopColors();

    const taxOnly = await patch({ tax_rate: '7.5' });
    expect(taxOnly.statusCode, taxOnly.body).toBe(200);
    expect(taxOnly.json().data.colors).toEqual({});
    expect(await shopColors()).toEqual(before);

    const primary = await patch({ colors: { primary: '#112233' } });
    expect(primary.statusCode, primary.body).toBe(200);
    expect(primary.json().data.colors).toEqual({ primary: '#112233' });
    expect(await configColors()).toEqual({ ...DEFAULT_STORE_COLORS, primary: '#112233' });
    expect(await shopColors()).toEqual({ ...DEFAULT_STORE_COLORS, primary: '#112233' });

    // null takes the colour out again: the default is drawn, as before it was ever set.
    const reset = await patch({ colors: { primary: null, accent: '#aa0000' } });
    expect(reset.statusCode, reset.body).toBe(200);
    expect((await settings()).colors).toEqual({ accent: '#aa0000' });
    expect(await shopColors()).toEqual({ ...DEFAULT_STORE_COLORS, accent: '#aa0000' });
    expect((await patch({ colors: { accent: null } })).statusCode).toBe(200);
    expect((await settings()).colors).toEqual({});
    expect(await shopColors()).toEqual(before);

    const bad = await patch({ colors: { primary: 'red' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('invalid_request');
  });

  it('fill a stored value that is not a colour with the default, in the shop and the config alike', async () => {
    const { store, configColors, shopColors } = await storeWithSession();
    // Written before the check on write existed: not drawn anywhere.
    await app.database.db
      .updateTable('stores')
      .set({ colors: JSON.stringify({ primary: 'tomato', text: '#000000' }) })
      .where('id', '=', store.id)
      .execute();
    const expected = { ...DEFAULT_STORE_COLORS, text: '#000000' };
    expect(await configColors()).toEqual(expected);
    expect(await shopColors()).toEqual(expected);
  });
});
