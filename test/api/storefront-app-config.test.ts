import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

let app: TestApp;
let slug: string;
let storeId: string;
let mobileKey: string;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app, { scopes: ['mobile:write'] });
  slug = store.store.slug;
  storeId = store.store.id;
  mobileKey = store.key;
});
afterAll(() => app.close());

const url = () => `/api/storefront/${slug}/app-config`;
const put = (payload: unknown, key?: string) =>
  app.server.inject({
    method: 'PUT',
    url: url(),
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    payload: JSON.stringify(payload),
  });

describe('/api/storefront/{slug}/app-config', () => {
  it('answers {} until a config is saved', async () => {
    const { store } = await createStoreWithKey(app);
    const res = await client(app).get(`/api/storefront/${store.slug}/app-config`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: {} });
  });

  it('saves any JSON object with a mobile:write key of the same store, then serves it', async () => {
    const config = {
      theme: { dark: true, fonts: ['Inter', 'Georgia'] },
      home: [{ type: 'banner', image: 'https://cdn.example.com/b.jpg', ratio: 1.5 }],
      version: 3,
      beta: null,
    };
    const res = await put(config, mobileKey);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: config });
    const got = await client(app).get(url());
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual({ data: config });

    // A later save replaces the whole document.
    expect((await put({ version: 4 }, mobileKey)).statusCode).toBe(200);
    expect((await client(app).get(url())).json()).toEqual({ data: { version: 4 } });
  });

  it('answers 401 without a key, 403 without mobile:write, 404 for another store’s key', async () => {
    const before = (await client(app).get(url())).json();
    const anonymous = await put({ hacked: true });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe('unauthorized');

    const noScope = await app.services.stores.createApiKey(storeId, { scopes: ['products:write'] });
    const forbidden = await put({ hacked: true }, noScope.key);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.code).toBe('forbidden');

    const other = await createStoreWithKey(app, { scopes: ['mobile:write'] });
    const foreign = await put({ hacked: true }, other.key);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe('not_found');

    const unknownStore = await app.server.inject({
      method: 'PUT',
      url: '/api/storefront/no-such-store/app-config',
      headers: { 'x-api-key': mobileKey },
      payload: { a: 1 },
    });
    expect(unknownStore.statusCode).toBe(404);
    expect((await client(app).get(url())).json()).toEqual(before);
  });

  it('refuses a config over 64 KiB with 413 and accepts one just under', async () => {
    const before = (await client(app).get(url())).json();
    const big = await put({ blob: 'x'.repeat(64 * 1024) }, mobileKey);
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe('payload_too_large');
    expect((await client(app).get(url())).json()).toEqual(before);

    const fits = { blob: 'y'.repeat(64 * 1024 - 20) };
    expect(Buffer.byteLength(JSON.stringify(fits))).toBeLessThanOrEqual(64 * 1024);
    expect((await put(fits, mobileKey)).statusCode).toBe(200);
  });

  it.each([
    ['an array', [1, 2]],
    ['a string', 'config'],
    ['a number', 42],
    ['null', null],
  ])('refuses %s with 400 invalid_request', async (_, payload) => {
    const res = await put(payload, mobileKey);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
  });

  it('refuses malformed JSON with 400 and a non-JSON body with 415', async () => {
    const malformed = await app.server.inject({
      method: 'PUT',
      url: url(),
      headers: { 'x-api-key': mobileKey, 'content-type': 'application/json' },
      payload: '{"a":',
    });
    expect(malformed.statusCode).toBe(400);
    const text = await app.server.inject({
      method: 'PUT',
      url: url(),
      headers: { 'x-api-key': mobileKey, 'content-type': 'text/plain' },
      payload: 'a=1',
    });
    expect(text.statusCode).toBe(415);
  });
});
