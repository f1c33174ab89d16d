import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createCategory,
  createProduct,
  type ProductData,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

let app: TestApp;
let a: Client;
let b: Client;
let storeAId: string;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const storeA = await createStoreWithKey(app);
  const storeB = await createStoreWithKey(app);
  storeAId = storeA.store.id;
  a = client(app, storeA.key);
  b = client(app, storeB.key);
});
afterAll(() => app.close());

const total = async (api: Client, query = '') =>
  (await api.get(`/api/v1/products?limit=1${query}`)).json().meta.pagination.total as number;

describe('GET /api/v1/products', () => {
  let store: Client;
  let shirts: { id: string };
  const made: ProductData[] = [];

  beforeAll(async () => {
    store = client(app, (await createStoreWithKey(app)).key);
    shirts = await createCategory(store, { name: 'Shirts' });
    made.push(await createProduct(store, { name: 'Red Shirt', sku: 'RS-001', category_ids: [shirts.id] }));
    made.push(await createProduct(store, { name: 'Green Hat', sku: 'HAT-9', status: 'draft' }));
    made.push(
      await createProduct(store, { name: 'Blue SHIRT', status: 'archived', category_ids: [shirts.id] }),
    );
    made.push(await createProduct(store, { name: 'Socks 100%', sku: 'SOCK' }));
    made.push(await createProduct(store, { name: 'Scarf' }));
  });

  const names = (res: { json(): { data: { name: string }[] } }) => res.json().data.map((p) => p.name);

  it('lists newest first with the pagination meta', async () => {
    const res = await store.get('/api/v1/products');
    expect(res.statusCode).toBe(200);
    expect(names(res)).toEqual(['Scarf', 'Socks 100%', 'Blue SHIRT', 'Green Hat', 'Red Shirt']);
    expect(res.json().meta.pagination).toEqual({
      page: 1,
      limit: 20,
      total: 5,
      total_pages: 1,
      has_next: false,
      has_prev: false,
      next_cursor: null,
    });
    const page2 = await store.get('/api/v1/products?page=2&limit=2');
    expect(names(page2)).toEqual(['Blue SHIRT', 'Green Hat']);
    expect(page2.json().meta.pagination).toEqual({
      page: 2,
      limit: 2,
      total: 5,
      total_pages: 3,
      has_next: true,
      has_prev: true,
      next_cursor: expect.any(String),
    });
  });

  it.each([
    ['status=draft', ['Green Hat']],
    ['status=archived', ['Blue SHIRT']],
    ['status=active', ['Scarf', 'Socks 100%', 'Red Shirt']],
    ['q=shirt', ['Blue SHIRT', 'Red Shirt']],
    ['q=hat-9', ['Green Hat']],
    ['q=rs-0', ['Red Shirt']],
    ['q=%25', ['Socks 100%']],
    ['q=_', []],
    ['q=shirt&status=active', ['Red Shirt']],
    ['category_id=CATEGORY', ['Blue SHIRT', 'Red Shirt']],
    ['category_id=CATEGORY&status=archived', ['Blue SHIRT']],
    [`category_id=${randomUUID()}`, []],
  ])('filters %s', async (query, expected) => {
    const res = await store.get(`/api/v1/products?${query.replace('CATEGORY', shirts.id)}`);
    expect(res.statusCode).toBe(200);
    expect(names(res)).toEqual(expected);
    expect(res.json().meta.pagination.total).toBe(expected.length);
  });

  it.each(['status=gone', 'page=0', 'limit=101', 'limit=abc'])('refuses %s with 400', async (query) => {
    const res = await store.get(`/api/v1/products?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
  });

  it('never lists another store’s products', async () => {
    const res = await b.get('/api/v1/products?limit=100');
    const ids = new Set(made.map((p) => p.id));
    expect(res.json().data.some((p: { id: string }) => ids.has(p.id))).toBe(false);
  });
});

describe('cross-store isolation', () => {
  it('answers 404 to store B for store A’s product on GET, PATCH and DELETE, and leaves it alone', async () => {
    const p = await createProduct(a, { name: 'Private Lamp' });
    for (const res of [
      await b.get(`/api/v1/products/${p.id}`),
      await b.patch(`/api/v1/products/${p.id}`, { name: 'Stolen' }),
      await b.del(`/api/v1/products/${p.id}`),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: { code: 'not_found', message: 'product not found' } });
    }
    expect((await a.get(`/api/v1/products/${p.id}`)).json().data.name).toBe('Private Lamp');
  });

  it('treats store A’s category ids as unknown for store B (400)', async () => {
    const category = await createCategory(a);
    const created = await b.post('/api/v1/products', {
      name: 'X',
      price: '1.00',
      category_ids: [category.id],
    });
    expect(created.statusCode).toBe(400);
    expect(created.json().error.details[0].field).toBe('category_ids');
    const own = await createProduct(b);
    const patched = await b.patch(`/api/v1/products/${own.id}`, { category_ids: [category.id] });
    expect(patched.statusCode).toBe(400);
    expect((await b.get(`/api/v1/products/${own.id}`)).json().data.category_ids).toEqual([]);
  });
});

describe('scopes', () => {
  it('lets products:read read but not write, and products:write write but not read', async () => {
    const reader = client(app, (await createStoreWithKey(app, { scopes: ['products:read'] })).key);
    const writerKey = await app.services.stores.createApiKey(storeAId, { scopes: ['products:write'] });
    const writer = client(app, writerKey.key);
    const p = await createProduct(a);

    expect((await client(app).get('/api/v1/products')).statusCode).toBe(401);
    expect((await reader.get('/api/v1/products')).statusCode).toBe(200);
    const denied = await reader.post('/api/v1/products', { name: 'X', price: '1.00' });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('forbidden');
    expect((await reader.patch(`/api/v1/products/${p.id}`, { name: 'Y' })).statusCode).toBe(403);
    expect((await reader.del(`/api/v1/products/${p.id}`)).statusCode).toBe(403);

    expect((await writer.post('/api/v1/products', { name: 'By writer', price: '1.00' })).statusCode).toBe(
      201,
    );
    expect((await writer.patch(`/api/v1/products/${p.id}`, { name: 'Renamed' })).statusCode).toBe(200);
    expect((await writer.get(`/api/v1/products/${p.id}`)).statusCode).toBe(403);
  });
});

describe('Idempotency-Key on POST /api/v1/products', () => {
  it('replays the first response for the same key and body, creating one product', async () => {
    const body = { name: 'Idempotent Lamp', price: '12.00', inventory: 3 };
    const headers = { 'idempotency-key': `lamp-${randomUUID()}` };
    const first = await a.post('/api/v1/products', body, headers);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await a.post('/api/v1/products', body, headers);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers['content-type']).toMatch(/^application\/json/);
    expect(second.json()).toEqual(first.json());
    expect(await total(a, '&q=idempotent%20lamp')).toBe(1);
  });

  it('answers 409 conflict for the same key with another body, creating nothing', async () => {
    const headers = { 'idempotency-key': `chair-${randomUUID()}` };
    expect(
      (await a.post('/api/v1/products', { name: 'Idem Chair', price: '1.00' }, headers)).statusCode,
    ).toBe(201);
    const res = await a.post('/api/v1/products', { name: 'Idem Chair', price: '2.00' }, headers);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('conflict');
    expect(await total(a, '&q=idem%20chair')).toBe(1);
  });

  it('creates one product when the same key arrives several times at once', async () => {
    const body = { name: 'Racing Vase', price: '8.00' };
    const headers = { 'idempotency-key': `vase-${randomUUID()}` };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => a.post('/api/v1/products', body, headers)),
    );
    for (const res of answers) expect([201, 409]).toContain(res.statusCode);
    const ids = new Set(answers.filter((r) => r.statusCode === 201).map((r) => r.json().data.id));
    expect(ids.size).toBe(1);
    expect(await total(a, '&q=racing%20vase')).toBe(1);
  });

  it('keeps keys per store and without a key creates every time', async () => {
    const body = { name: 'Shared Key Stool', price: '3.00' };
    const headers = { 'idempotency-key': `stool-${randomUUID()}` };
    expect((await a.post('/api/v1/products', body, headers)).statusCode).toBe(201);
    const other = await b.post('/api/v1/products', body, headers);
    expect(other.statusCode).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    await a.post('/api/v1/products', body);
    expect(await total(a, '&q=shared%20key%20stool')).toBe(2);
    expect(await total(b, '&q=shared%20key%20stool')).toBe(1);
  });

  it('refuses an ill-formed key with 400', async () => {
    for (const key of ['x'.repeat(256), 'with space']) {
      const res = await a.post(
        '/api/v1/products',
        { name: 'Bad Key', price: '1.00' },
        { 'idempotency-key': key },
      );
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    expect(await total(a, '&q=bad%20key')).toBe(0);
  });

  it('does not keep the key of a request that failed validation', async () => {
    const headers = { 'idempotency-key': `bad-${randomUUID()}` };
    expect((await a.post('/api/v1/products', { name: 'Fixed Later' }, headers)).statusCode).toBe(400);
    expect(
      (await a.post('/api/v1/products', { name: 'Fixed Later', price: '1.00' }, headers)).statusCode,
    ).toBe(201);
  });
});
