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
let keyA: string;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const storeA = await createStoreWithKey(app);
  const storeB = await createStoreWithKey(app);
  keyA = storeA.key;
  a = client(app, storeA.key);
  b = client(app, storeB.key);
});
afterAll(() => app.close());

const total = async (api: Client, query = '') =>
  (await api.get(`/api/v1/products?limit=1${query}`)).json().meta.pagination.total as number;

const PRODUCT_FIELDS = [
  'id',
  'name',
  'slug',
  'description',
  'status',
  'price',
  'compare_price',
  'sku',
  'inventory',
  'track_inventory',
  'low_stock_threshold',
  'weight_grams',
  'taxable',
  'stock_status',
  'category_ids',
  'images',
  'media',
  'options',
  'variants',
  'created_at',
  'updated_at',
].sort();

describe('POST /api/v1/products', () => {
  it('answers 201 { success: true, data } with the contract fields and defaults', async () => {
    const res = await a.post('/api/v1/products', {
      name: 'Plain Mug',
      price: '19.99',
      description: 'A mug',
      inventory: 12,
      images: [{ url: 'https://cdn.example.com/mug.jpg', alt: 'mug' }],
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(Object.keys(body).sort()).toEqual(['data', 'success']);
    const p = body.data as ProductData;
    expect(Object.keys(p).sort()).toEqual(PRODUCT_FIELDS);
    expect(p).toMatchObject({
      name: 'Plain Mug',
      slug: 'plain-mug',
      description: 'A mug',
      status: 'active',
      price: '19.99',
      compare_price: null,
      sku: null,
      inventory: 12,
      track_inventory: true,
      low_stock_threshold: null,
      weight_grams: 0,
      taxable: true,
      category_ids: [],
      media: [],
      options: [],
      variants: [],
    });
    expect(p.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(p.images).toEqual([
      {
        id: expect.any(String),
        url: 'https://cdn.example.com/mug.jpg',
        alt: 'mug',
        is_primary: true,
        position: 0,
      },
    ]);
    expect(p.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await a.get(`/api/v1/products/${p.id}`)).json().data).toEqual(p);
  });

  it.each([
    [19.99, '19.99'],
    ['5', '5.00'],
    [5, '5.00'],
    ['0.5', '0.50'],
    ['1234567.80', '1234567.80'],
    [0, '0.00'],
  ])('accepts price %j and answers %j', async (price, expected) => {
    const p = await createProduct(a, { price, compare_price: price });
    expect(p.price).toBe(expected);
    expect(p.compare_price).toBe(expected);
  });

  it('generates slugs from the name and de-duplicates them', async () => {
    const slugs = [];
    for (let i = 0; i < 3; i++) slugs.push((await createProduct(a, { name: 'Blue Tee' })).slug);
    expect(slugs).toEqual(['blue-tee', 'blue-tee-2', 'blue-tee-3']);
    expect((await createProduct(a, { name: '  Café Crème 250 g! ' })).slug).toBe('cafe-creme-250-g');
  });

  it('gives parallel creations of one name distinct generated slugs', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => a.post('/api/v1/products', { name: 'Parallel Tee', price: '1.00' })),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(Array(6).fill(201));
    const slugs = answers.map((r) => r.json().data.slug).sort();
    expect(slugs).toEqual([
      'parallel-tee',
      'parallel-tee-2',
      'parallel-tee-3',
      'parallel-tee-4',
      'parallel-tee-5',
      'parallel-tee-6',
    ]);
  });

  it('refuses an explicit duplicate slug with 409 conflict', async () => {
    await createProduct(a, { slug: 'taken-slug' });
    const res = await a.post('/api/v1/products', { name: 'Other', price: '1.00', slug: 'taken-slug' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('conflict');
    // Another store may use the same slug.
    expect((await createProduct(b, { slug: 'taken-slug' })).slug).toBe('taken-slug');
  });

  it('stores explicit fields: status, sku, tracking, threshold, options and variants', async () => {
    const category = await createCategory(a);
    const p = await createProduct(a, {
      name: 'Hoodie',
      price: 40,
      status: 'draft',
      sku: 'HOOD-1',
      track_inventory: false,
      low_stock_threshold: 2,
      category_ids: [category.id],
      options: [
        { name: 'Size', values: ['S', 'M'] },
        { name: 'Colour', values: ['Red', 'Blue'] },
      ],
      variants: [
        { options: { Size: 'S', Colour: 'Red' }, inventory: 3, sku: 'H-S-R' },
        { options: { Size: 'M', Colour: 'Blue' }, inventory: 4, price: '45.5', title: 'Big blue' },
      ],
    });
    expect(p).toMatchObject({
      status: 'draft',
      sku: 'HOOD-1',
      track_inventory: false,
      low_stock_threshold: 2,
      category_ids: [category.id],
      inventory: 7,
    });
    expect(p.variants).toEqual([
      {
        id: expect.any(String),
        title: 'S / Red',
        sku: 'H-S-R',
        price: '40.00',
        compare_price: null,
        inventory: 3,
        weight_grams: null,
        options: { Size: 'S', Colour: 'Red' },
      },
      {
        id: expect.any(String),
        title: 'Big blue',
        sku: null,
        price: '45.50',
        compare_price: null,
        inventory: 4,
        weight_grams: null,
        options: { Size: 'M', Colour: 'Blue' },
      },
    ]);
  });

  it.each([
    ['missing name', { price: '1.00' }, 'name'],
    ['missing price', { name: 'X' }, 'price'],
    ['negative price', { name: 'X', price: -1 }, 'price'],
    ['negative price string', { name: 'X', price: '-1.00' }, 'price'],
    ['too many decimals for USD', { name: 'X', price: '1.999' }, 'price'],
    ['non-numeric price', { name: 'X', price: 'abc' }, 'price'],
    ['price in exponent form', { name: 'X', price: '1e3' }, 'price'],
    ['unknown field', { name: 'X', price: '1.00', colour: 'red' }, 'colour'],
    ['empty name', { name: '', price: '1.00' }, 'name'],
    ['blank name', { name: '   ', price: '1.00' }, 'name'],
    ['bad status', { name: 'X', price: '1.00', status: 'deleted' }, 'status'],
    ['negative inventory', { name: 'X', price: '1.00', inventory: -1 }, 'inventory'],
    ['bad slug', { name: 'X', price: '1.00', slug: 'Not A Slug' }, 'slug'],
    [
      'variants without options',
      { name: 'X', price: '1.00', variants: [{ options: { Size: 'S' } }] },
      'options',
    ],
    [
      'unknown option value',
      {
        name: 'X',
        price: '1.00',
        options: [{ name: 'Size', values: ['S', 'M'] }],
        variants: [{ options: { Size: 'XL' } }],
      },
      'variants.0.options.Size',
    ],
    [
      'duplicate combination',
      {
        name: 'X',
        price: '1.00',
        options: [{ name: 'Size', values: ['S', 'M'] }],
        variants: [{ options: { Size: 'S' } }, { options: { Size: 'S' } }],
      },
      'variants.1',
    ],
    [
      'a variant carrying an id',
      {
        name: 'X',
        price: '1.00',
        options: [{ name: 'Size', values: ['S'] }],
        variants: [{ id: randomUUID(), options: { Size: 'S' } }],
      },
      'variants.0.id',
    ],
    [
      'inventory with variants',
      {
        name: 'X',
        price: '1.00',
        inventory: 5,
        options: [{ name: 'Size', values: ['S'] }],
        variants: [{ options: { Size: 'S' }, inventory: 1 }],
      },
      'inventory',
    ],
    ['unknown category id', { name: 'X', price: '1.00', category_ids: [randomUUID()] }, 'category_ids'],
    [
      'two primary images',
      {
        name: 'X',
        price: '1.00',
        images: [
          { url: 'https://cdn.example.com/1.jpg', is_primary: true },
          { url: 'https://cdn.example.com/2.jpg', is_primary: true },
        ],
      },
      'images',
    ],
    [
      'non-http image URL',
      { name: 'X', price: '1.00', images: [{ url: 'ftp://example.com/a.jpg' }] },
      'images.0.url',
    ],
    ['relative image URL', { name: 'X', price: '1.00', images: [{ url: '/a.jpg' }] }, 'images.0.url'],
  ])('refuses %s with 400 invalid_request and details, creating nothing', async (_, body, field) => {
    const before = await total(a);
    const res = await a.post('/api/v1/products', body);
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('invalid_request');
    expect(error.message).toEqual(expect.any(String));
    expect(error.details.length).toBeGreaterThan(0);
    expect(error.details.map((d: { field: string }) => d.field)).toContain(field);
    for (const detail of error.details)
      expect(detail).toEqual({ field: expect.any(String), message: expect.any(String) });
    expect(await total(a)).toBe(before);
  });

  it('uses the store currency’s decimals (JPY has none)', async () => {
    const store = await app.services.stores.createStore({
      slug: `yen-${randomUUID().slice(0, 8)}`,
      name: 'Yen',
      currency: 'JPY',
    });
    const yen = client(app, (await app.services.stores.createApiKey(store.id, { scopes: 'all' })).key);
    expect((await createProduct(yen, { price: '1500', compare_price: 2000 })).price).toBe('1500');
    const res = await yen.post('/api/v1/products', { name: 'X', price: '1500.5' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].field).toBe('price');
  });

  it('refuses a non-JSON body with 415 and malformed JSON with 400', async () => {
    const text = await app.server.inject({
      method: 'POST',
      url: '/api/v1/products',
      headers: { 'x-api-key': keyA, 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe('unsupported_media_type');
    const res = await a.post('/api/v1/products', '{"name": ', { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
  });
});
