import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createCategory,
  createProduct,
  sizedProduct,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { stripeKeys } from '../helpers/fake-stripe.js';
import { createOrder } from '../helpers/order-factories.js';

/** Optimistic concurrency (issue 30 item 1): ETag on GET, If-Match on PATCH, 412 when stale. */

let app: TestApp;
let a: Client;
let b: Client;
let keyA: string;
let keyB: string;
let cookie: string;
let slugA: string;
const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'correct horse battery';
const TAG = /^"[^"]+"$/;

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN, allowPrivateUrls: true } });
  const store = await createStoreWithKey(app);
  keyA = store.key;
  slugA = store.store.slug;
  keyB = (await createStoreWithKey(app)).key;
  a = client(app, keyA);
  b = client(app, keyB);
  const email = `owner.${Date.now()}@example.com`;
  await app.services.stores.createAdminUser({ email, password: PASSWORD, storeSlug: store.store.slug });
  const login = await app.server.inject({
    method: 'POST',
    url: '/api/admin/auth/login',
    payload: { email, password: PASSWORD },
  });
  cookie = String(login.headers['set-cookie']).split(';')[0] as string;
});
afterAll(() => app.close());

const patchWith = (api: Client, url: string, body: unknown, ifMatch?: string) =>
  app.server.inject({
    method: 'PATCH',
    url,
    headers: {
      'x-api-key': api === a ? keyA : keyB,
      ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
    },
    payload: body as object,
  });

const admin = (method: 'GET' | 'PATCH', body?: unknown, ifMatch?: string) =>
  app.server.inject({
    method,
    url: '/api/admin/store',
    headers: { cookie, origin: ORIGIN, ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) },
    ...(body === undefined ? {} : { payload: body as object }),
  });

describe('products', () => {
  it('GET answers a quoted ETag; a PATCH with it applies and answers the new one', async () => {
    const p = await createProduct(a, { price: '28.00' });
    const got = await a.get(`/api/v1/products/${p.id}`);
    const etag = String(got.headers.etag);
    expect(etag).toMatch(TAG);
    const saved = await patchWith(a, `/api/v1/products/${p.id}`, { name: 'Renamed' }, etag);
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.headers.etag).toMatch(TAG);
    expect(saved.headers.etag).not.toBe(etag);
    expect((await a.get(`/api/v1/products/${p.id}`)).headers.etag).toBe(saved.headers.etag);
  });

  it('a stale If-Match is 412 precondition_failed and changes nothing; without If-Match it applies', async () => {
    const p = await createProduct(a, sizedProduct({ S: 3, M: 4 }));
    const etag = String((await a.get(`/api/v1/products/${p.id}`)).headers.etag);
    const [small] = p.variants;
    if (!small) throw new Error('variants missing');
    // A variant-only edit changes the product's version.
    const first = await patchWith(
      a,
      `/api/v1/products/${p.id}`,
      {
        variants: p.variants.map((v) => ({
          id: v.id,
          options: v.options,
          price: v.id === small.id ? '28.00' : v.price,
        })),
      },
      etag,
    );
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers.etag).not.toBe(etag);
    const stale = await patchWith(a, `/api/v1/products/${p.id}`, { name: 'Stale' }, etag);
    expect(stale.statusCode).toBe(412);
    expect(stale.json().error.code).toBe('precondition_failed');
    const now = (await a.get(`/api/v1/products/${p.id}`)).json().data;
    expect(now.name).toBe(p.name);
    expect(now.variants[0].price).toBe('28.00');
    expect((await patchWith(a, `/api/v1/products/${p.id}`, { name: 'No header' })).statusCode).toBe(200);
    expect((await patchWith(a, `/api/v1/products/${p.id}`, { name: 'Any' }, '*')).statusCode).toBe(200);
  });

  it('a malformed If-Match is 400; a list containing the current tag matches; a weak tag never does', async () => {
    const p = await createProduct(a);
    const etag = String((await a.get(`/api/v1/products/${p.id}`)).headers.etag);
    const url = `/api/v1/products/${p.id}`;
    const bad = await patchWith(a, url, { name: 'x' }, 'not-quoted');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('invalid_request');
    expect((await patchWith(a, url, { name: 'x' }, `W/${etag}`)).statusCode).toBe(412);
    expect((await patchWith(a, url, { name: 'y' }, `"other", ${etag}`)).statusCode).toBe(200);
  });

  it('of two concurrent PATCHes with the same If-Match, one is 200 and the other 412', async () => {
    const p = await createProduct(a);
    const etag = String((await a.get(`/api/v1/products/${p.id}`)).headers.etag);
    const url = `/api/v1/products/${p.id}`;
    const answers = await Promise.all([
      patchWith(a, url, { name: 'First' }, etag),
      patchWith(a, url, { price: '26.00' }, etag),
    ]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 412]);
  });

  it("another store's product is 404 whatever the If-Match", async () => {
    const p = await createProduct(a);
    const etag = String((await a.get(`/api/v1/products/${p.id}`)).headers.etag);
    expect((await b.get(`/api/v1/products/${p.id}`)).statusCode).toBe(404);
    expect((await patchWith(b, `/api/v1/products/${p.id}`, { name: 'x' }, etag)).statusCode).toBe(404);
    expect((await patchWith(b, `/api/v1/products/${p.id}`, { name: 'x' }, '*')).statusCode).toBe(404);
  });
});

describe.each([
  {
    name: 'categories',
    create: async () => (await createCategory(a)).id,
    change: { description: 'Changed' },
    other: { position: 3 },
  },
  {
    name: 'discounts',
    create: async () => {
      const res = await a.post('/api/v1/discounts', {
        code: `SAVE${Date.now()}`,
        type: 'percentage',
        value: '10',
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data.id as string;
    },
    change: { title: 'Changed' },
    other: { usage_limit: 5 },
  },
  {
    name: 'webhooks',
    create: async () => {
      const res = await a.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data.id as string;
    },
    change: { description: 'Changed' },
    other: { active: false },
  },
  {
    name: 'orders',
    create: async () => {
      const p = await createProduct(a, { price: '12.00', inventory: 10 });
      return (await createOrder(a, { items: [{ product_id: p.id, quantity: 1 }] })).id as string;
    },
    change: { notes: 'Changed' },
    other: {
      shipping_address: { line1: '2 Side St', city: 'Shelbyville', postal_code: '54321', country: 'US' },
    },
  },
])('$name', ({ name, create, change, other }) => {
  it('ETag on GET; stale If-Match 412 with nothing changed; the pair of concurrent writes: one 412', async () => {
    const url = `/api/v1/${name}/${await create()}`;
    const got = await a.get(url);
    const etag = String(got.headers.etag);
    expect(etag).toMatch(TAG);
    const saved = await patchWith(a, url, change, etag);
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.headers.etag).not.toBe(etag);
    const stale = await patchWith(a, url, other, etag);
    expect(stale.statusCode).toBe(412);
    expect(stale.json().error.code).toBe('precondition_failed');
    expect((await a.get(url)).json().data).toEqual(saved.json().data);

    const current = String(saved.headers.etag);
    const pair = await Promise.all([patchWith(a, url, change, current), patchWith(a, url, other, current)]);
    expect(pair.map((r) => r.statusCode).sort()).toEqual([200, 412]);
    expect((await patchWith(a, url, other)).statusCode).toBe(200);
  });

  it("another store's id is 404, with or without If-Match", async () => {
    const url = `/api/v1/${name}/${await create()}`;
    const etag = String((await a.get(url)).headers.etag);
    expect((await b.get(url)).statusCode).toBe(404);
    expect((await patchWith(b, url, change, etag)).statusCode).toBe(404);
    expect((await patchWith(b, url, change)).statusCode).toBe(404);
  });
});

describe('store settings (/api/admin/store)', () => {
  it('a rename then a stale tax-rate save: 412 and the name is kept; two concurrent saves: one 412', async () => {
    const got = await admin('GET');
    const etag = String(got.headers.etag);
    expect(etag).toMatch(TAG);
    const renamed = await admin('PATCH', { name: 'Renamed store' }, etag);
    expect(renamed.statusCode, renamed.body).toBe(200);
    const stale = await admin('PATCH', { tax_rate: '7' }, etag);
    expect(stale.statusCode).toBe(412);
    expect(stale.json().error.code).toBe('precondition_failed');
    const now = await admin('GET');
    expect(now.json().data.name).toBe('Renamed store');
    expect(now.headers.etag).toBe(renamed.headers.etag);

    const current = String(now.headers.etag);
    const pair = await Promise.all([
      admin('PATCH', { name: 'One' }, current),
      admin('PATCH', { tax_rate: '8' }, current),
    ]);
    expect(pair.map((r) => r.statusCode).sort()).toEqual([200, 412]);
    expect((await admin('PATCH', { tax_rate: '9' })).statusCode).toBe(200);
  });
});

const put = (key: string, url: string, body: unknown, ifMatch?: string) =>
  app.server.inject({
    method: 'PUT',
    url,
    headers: { 'x-api-key': key, ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) },
    payload: body as object,
  });

describe.each([
  {
    name: 'app config',
    url: () => `/api/storefront/${slugA}/app-config`,
    first: () => ({ theme: 'dark' }),
    second: () => ({ theme: 'light', tabs: ['home'] }),
    // The app config's tag is its content's: the pair must write two new documents.
    third: () => ({ theme: 'blue' }),
  },
  {
    name: 'Stripe settings',
    url: () => '/api/v1/payments/stripe',
    first: stripeKeys,
    second: stripeKeys,
    third: stripeKeys,
  },
])('$name (PUT)', ({ url, first, second, third }) => {
  it('ETag on GET; stale If-Match 412 with nothing changed; the pair of concurrent writes: one 412', async () => {
    const got = await a.get(url());
    const etag = String(got.headers.etag);
    expect(etag).toMatch(TAG);
    const saved = await put(keyA, url(), first(), etag);
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.headers.etag).toMatch(TAG);
    expect(saved.headers.etag).not.toBe(etag);
    const after = await a.get(url());
    expect(after.headers.etag).toBe(saved.headers.etag);
    const stale = await put(keyA, url(), second(), etag);
    expect(stale.statusCode).toBe(412);
    expect(stale.json().error.code).toBe('precondition_failed');
    expect((await a.get(url())).json().data).toEqual(after.json().data);

    const current = String(saved.headers.etag);
    const pair = await Promise.all([put(keyA, url(), second(), current), put(keyA, url(), third(), current)]);
    expect(pair.map((r) => r.statusCode).sort()).toEqual([200, 412]);
    expect((await put(keyA, url(), second())).statusCode).toBe(200);
  });

  it("another store's key cannot write with this store's tag", async () => {
    const etag = String((await a.get(url())).headers.etag);
    const other = await put(keyB, url(), first(), etag);
    expect([404, 412]).toContain(other.statusCode);
    expect((await a.get(url())).headers.etag).toBe(etag);
  });
});

describe('order items edit', () => {
  const editWith = (api: Client, id: string, body: unknown, ifMatch?: string) =>
    app.server.inject({
      method: 'POST',
      url: `/api/v1/orders/${id}/edit-items`,
      headers: {
        'x-api-key': api === a ? keyA : keyB,
        ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
      },
      payload: body as object,
    });

  it('an edit prepared on an older version is 412 with nothing changed; on the latest it applies', async () => {
    const p = await createProduct(a, { price: '12.00', inventory: 10 });
    const order = await createOrder(a, { items: [{ product_id: p.id, quantity: 1 }] });
    const url = `/api/v1/orders/${order.id}`;
    const got = await a.get(url);
    const etag = String(got.headers.etag);
    const item = got.json().data.line_items[0].id as string;
    const noted = await patchWith(a, url, { notes: 'Gift' }, etag);
    expect(noted.statusCode, noted.body).toBe(200);

    const twoMore = { update_quantity: [{ item_id: item, new_quantity: 3 }] };
    const stale = await editWith(a, order.id, twoMore, etag);
    expect(stale.statusCode).toBe(412);
    expect(stale.json().error.code).toBe('precondition_failed');
    expect((await a.get(url)).json().data).toEqual(noted.json().data);
    expect((await a.get(`/api/v1/products/${p.id}`)).json().data.inventory).toBe(9);

    const edited = await editWith(a, order.id, twoMore, String(noted.headers.etag));
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().data.line_items[0].quantity).toBe(3);
    const latest = await a.get(url);
    expect(edited.headers.etag).toBe(latest.headers.etag);
    expect(latest.json().data.notes).toBe('Gift');
    expect((await a.get(`/api/v1/products/${p.id}`)).json().data.inventory).toBe(7);

    // Without If-Match it applies as before; another store's order is 404 either way.
    const once = { update_quantity: [{ item_id: item, new_quantity: 2 }] };
    expect((await editWith(a, order.id, once)).statusCode).toBe(200);
    expect((await editWith(b, order.id, once, String(latest.headers.etag))).statusCode).toBe(404);
    expect((await editWith(b, order.id, once)).statusCode).toBe(404);
  });
});

describe('OpenAPI document', () => {
  it('lists 412 and If-Match on the conditional operations and ETag on their answers', async () => {
    const doc = (await app.server.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const [path, method] of [
      ['/api/v1/products/{id}', 'patch'],
      ['/api/v1/categories/{id}', 'patch'],
      ['/api/v1/discounts/{id}', 'patch'],
      ['/api/admin/store', 'patch'],
      ['/api/v1/webhooks/{id}', 'patch'],
      ['/api/v1/orders/{id}', 'patch'],
      ['/api/v1/orders/{id}/edit-items', 'post'],
      ['/api/storefront/{slug}/app-config', 'put'],
      ['/api/v1/payments/stripe', 'put'],
    ] as const) {
      const op = doc.paths[path][method];
      expect(op.responses['412'], `${method} ${path}`).toBeDefined();
      expect(op.parameters.map((p: { name: string }) => p.name)).toContain('If-Match');
      expect(op.responses['200'].headers.ETag).toBeDefined();
    }
    expect(doc.paths['/api/v1/products/{id}'].get.responses['200'].headers.ETag).toBeDefined();
    expect(doc.components.schemas.ErrorBody.properties.error.properties.code.enum).toContain(
      'precondition_failed',
    );
  });
});
