import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckoutCart } from '../../src/modules/discounts/index.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { AppError } from '../../src/platform/http/errors.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createCategory,
  createProduct,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createCustomers, createStoreWithKey } from '../helpers/factories.js';

let app: TestApp;
let a: Client;
let b: Client;
let storeA: string;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const first = await createStoreWithKey(app);
  storeA = first.store.id;
  a = client(app, first.key);
  b = client(app, (await createStoreWithKey(app)).key);
});
afterAll(() => app.close());

interface DiscountData {
  id: string;
  code: string | null;
  title: string;
  type: string;
  value: string;
  min_subtotal: string | null;
  starts_at: string;
  ends_at: string | null;
  usage_limit: number | null;
  usage_count: number;
  once_per_customer: boolean;
  active: boolean;
  product_ids: string[];
  category_ids: string[];
  created_at: string;
  updated_at: string;
}

const unique = () => randomUUID().slice(0, 8).toUpperCase();
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const HOUR = 3_600_000;
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

async function createDiscount(api: Client, body: Record<string, unknown> = {}): Promise<DiscountData> {
  const res = await api.post('/api/v1/discounts', {
    code: `CODE-${unique()}`,
    type: 'percentage',
    // Free shipping has no value to give.
    ...(body.type === 'free_shipping' ? {} : { value: '10' }),
    ...body,
  });
  if (res.statusCode !== 201) throw new Error(`discount create answered ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

/** Customers of a store, for redemptions (they must exist: redemptions reference them). */
async function customersOf(storeId: string, count: number): Promise<string[]> {
  return (await createCustomers(app, storeId, count)).map((c) => c.id);
}

const getDiscount = async (api: Client, id: string) => (await api.get(`/api/v1/discounts/${id}`)).json().data;

describe('POST /api/v1/discounts', () => {
  it('answers 201 { data } with exactly the contract fields', async () => {
    const product = await createProduct(a);
    const category = await createCategory(a);
    const startsAt = '2026-12-01T00:00:00.000Z';
    const res = await a.post('/api/v1/discounts', {
      code: 'Winter15',
      title: 'Winter sale',
      type: 'percentage',
      value: '15',
      min_subtotal: '50.00',
      starts_at: startsAt,
      ends_at: '2027-01-01T00:00:00Z',
      usage_limit: 100,
      once_per_customer: true,
      active: false,
      product_ids: [product.id],
      category_ids: [category.id],
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      code: 'Winter15',
      title: 'Winter sale',
      type: 'percentage',
      value: '15',
      min_subtotal: '50.00',
      starts_at: startsAt,
      ends_at: '2027-01-01T00:00:00.000Z',
      usage_limit: 100,
      usage_count: 0,
      once_per_customer: true,
      active: false,
      product_ids: [product.id],
      category_ids: [category.id],
      created_at: expect.stringMatching(ISO),
      updated_at: body.data.created_at,
    });
    expect(await getDiscount(a, body.data.id)).toEqual(body.data);
  });

  it('fills the defaults: title from the code, starts now, no end, no limit, active, whole cart', async () => {
    const before = Date.now();
    const d = await createDiscount(a, { code: 'FIVEOFF', type: 'fixed_amount', value: 5 });
    expect(d).toMatchObject({
      code: 'FIVEOFF',
      title: 'FIVEOFF',
      value: '5.00',
      min_subtotal: null,
      ends_at: null,
      usage_limit: null,
      usage_count: 0,
      once_per_customer: false,
      active: true,
      product_ids: [],
      category_ids: [],
    });
    expect(Date.parse(d.starts_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(d.starts_at).toMatch(ISO);
  });

  it('creates automatic discounts (code null), several per store', async () => {
    const first = await createDiscount(a, {
      code: null,
      title: 'Free shipping for all',
      type: 'free_shipping',
    });
    expect(first).toMatchObject({
      code: null,
      title: 'Free shipping for all',
      type: 'free_shipping',
      value: '0',
    });
    const second = await createDiscount(a, { code: null, title: 'Automatic 5 %', value: 5 });
    expect(second).toMatchObject({ code: null, value: '5' });
    const zero = await createDiscount(a, {
      code: null,
      title: 'Ship free',
      type: 'free_shipping',
      value: '0.00',
    });
    expect(zero.value).toBe('0');
  });

  it.each([
    ['15', '15'],
    [15, '15'],
    ['12.5', '12.5'],
    [12.5, '12.5'],
    ['12.50', '12.5'],
    ['0.01', '0.01'],
    ['100', '100'],
    ['99.99', '99.99'],
  ])('stores percentage %j exactly as %s', async (value, shown) => {
    expect((await createDiscount(a, { value })).value).toBe(shown);
  });

  it.each([
    ['19.99', '19.99'],
    [19.99, '19.99'],
    ['7', '7.00'],
    [0.5, '0.50'],
  ])('stores fixed amount %j as %s in the store currency', async (value, shown) => {
    const d = await createDiscount(a, { type: 'fixed_amount', value, min_subtotal: value });
    expect(d.value).toBe(shown);
    expect(d.min_subtotal).toBe(shown);
  });

  it('uses the decimals of the store currency (JPY has none)', async () => {
    const store = await app.services.stores.createStore({
      slug: `yen-${unique().toLowerCase()}`,
      name: 'Yen store',
      currency: 'JPY',
    });
    const yen = client(app, (await app.services.stores.createApiKey(store.id, { scopes: 'all' })).key);
    const d = await createDiscount(yen, { type: 'fixed_amount', value: '500', min_subtotal: 3000 });
    expect(d).toMatchObject({ value: '500', min_subtotal: '3000' });
    const res = await yen.post('/api/v1/discounts', { code: 'X', type: 'fixed_amount', value: '1.5' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].field).toBe('value');
  });

  const productOfB = { id: '' };
  beforeAll(async () => {
    productOfB.id = (await createProduct(b)).id;
  });

  it.each<[string, () => Record<string, unknown>, string]>([
    ['a missing type', () => ({ code: 'X1', value: '10' }), 'type'],
    ['an unknown type', () => ({ code: 'X1', type: 'bogo', value: '10' }), 'type'],
    ['a percentage without value', () => ({ code: 'X1', type: 'percentage' }), 'value'],
    ['a fixed amount without value', () => ({ code: 'X1', type: 'fixed_amount' }), 'value'],
    ['a percentage of 0', () => ({ code: 'X1', type: 'percentage', value: '0' }), 'value'],
    ['a percentage over 100', () => ({ code: 'X1', type: 'percentage', value: '100.01' }), 'value'],
    ['a percentage with 3 decimals', () => ({ code: 'X1', type: 'percentage', value: '12.345' }), 'value'],
    ['a negative percentage', () => ({ code: 'X1', type: 'percentage', value: -5 }), 'value'],
    ['a percentage in words', () => ({ code: 'X1', type: 'percentage', value: 'ten' }), 'value'],
    ['a fixed amount of 0', () => ({ code: 'X1', type: 'fixed_amount', value: '0.00' }), 'value'],
    ['a fixed amount with 3 decimals', () => ({ code: 'X1', type: 'fixed_amount', value: '1.234' }), 'value'],
    ['free shipping with a value', () => ({ code: 'X1', type: 'free_shipping', value: '5' }), 'value'],
    ['an automatic discount without title', () => ({ code: null, type: 'percentage', value: '5' }), 'title'],
    ['a blank title', () => ({ code: 'X1', title: '   ', type: 'percentage', value: '5' }), 'title'],
    ['a code with a space', () => ({ code: 'TWO WORDS', type: 'percentage', value: '5' }), 'code'],
    ['an empty code', () => ({ code: '', type: 'percentage', value: '5' }), 'code'],
    [
      'a negative min_subtotal',
      () => ({ code: 'X1', type: 'percentage', value: '5', min_subtotal: '-1' }),
      'min_subtotal',
    ],
    [
      'a min_subtotal in words',
      () => ({ code: 'X1', type: 'percentage', value: '5', min_subtotal: 'ten' }),
      'min_subtotal',
    ],
    [
      'a usage_limit of 0',
      () => ({ code: 'X1', type: 'percentage', value: '5', usage_limit: 0 }),
      'usage_limit',
    ],
    [
      'a fractional usage_limit',
      () => ({ code: 'X1', type: 'percentage', value: '5', usage_limit: 1.5 }),
      'usage_limit',
    ],
    [
      'a malformed starts_at',
      () => ({ code: 'X1', type: 'percentage', value: '5', starts_at: 'yesterday' }),
      'starts_at',
    ],
    [
      'ends_at before starts_at',
      () => ({ code: 'X1', type: 'percentage', value: '5', starts_at: at(2 * HOUR), ends_at: at(HOUR) }),
      'ends_at',
    ],
    [
      'ends_at equal to starts_at',
      () => ({ code: 'X1', type: 'percentage', value: '5', starts_at: at(HOUR), ends_at: at(HOUR) }),
      'ends_at',
    ],
    [
      'ends_at before now (default starts_at)',
      () => ({ code: 'X1', type: 'percentage', value: '5', ends_at: at(-HOUR) }),
      'ends_at',
    ],
    [
      'an unknown product id',
      () => ({ code: 'X1', type: 'percentage', value: '5', product_ids: [randomUUID()] }),
      'product_ids',
    ],
    [
      'a malformed product id',
      () => ({ code: 'X1', type: 'percentage', value: '5', product_ids: ['abc'] }),
      'product_ids',
    ],
    [
      'a product of another store',
      () => ({ code: 'X1', type: 'percentage', value: '5', product_ids: [productOfB.id] }),
      'product_ids',
    ],
    [
      'an unknown category id',
      () => ({ code: 'X1', type: 'percentage', value: '5', category_ids: [randomUUID()] }),
      'category_ids',
    ],
    [
      'a repeated product id',
      () => {
        const id = randomUUID();
        return { code: 'X1', type: 'percentage', value: '5', product_ids: [id, id] };
      },
      'product_ids',
    ],
    ['an unknown field', () => ({ code: 'X1', type: 'percentage', value: '5', colour: 'red' }), 'colour'],
    [
      'a read-only usage_count',
      () => ({ code: 'X1', type: 'percentage', value: '5', usage_count: 3 }),
      'usage_count',
    ],
  ])('refuses %s with 400 invalid_request naming the field', async (_, body, field) => {
    const res = await a.post('/api/v1/discounts', body());
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('invalid_request');
    expect(error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await a.get('/api/v1/discounts?q=X1')).json().data).toEqual([]);
  });

  it('refuses a duplicate code, case-insensitively, with 409; another store may use it', async () => {
    const code = `Summer-${unique()}`;
    await createDiscount(a, { code });
    for (const spelling of [code, code.toLowerCase(), code.toUpperCase()]) {
      const res = await a.post('/api/v1/discounts', { code: spelling, type: 'percentage', value: '5' });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        error: { code: 'conflict', message: 'a discount with this code already exists' },
      });
    }
    expect((await createDiscount(b, { code: code.toLowerCase() })).code).toBe(code.toLowerCase());
    expect((await a.get(`/api/v1/discounts?q=${code}`)).json().meta.pagination.total).toBe(1);
  });
});

describe('PATCH /api/v1/discounts/{id}', () => {
  it('updates the given fields and keeps the others', async () => {
    const product = await createProduct(a);
    const category = await createCategory(a);
    const d = await createDiscount(a, { title: 'Before', value: '10', usage_limit: 5 });
    const res = await a.patch(`/api/v1/discounts/${d.id}`, {
      title: 'After',
      value: 12.5,
      min_subtotal: '20',
      ends_at: '2099-01-01T00:00:00.000Z',
      once_per_customer: true,
      active: false,
      product_ids: [product.id],
      category_ids: [category.id],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      ...d,
      title: 'After',
      value: '12.5',
      min_subtotal: '20.00',
      ends_at: '2099-01-01T00:00:00.000Z',
      once_per_customer: true,
      active: false,
      product_ids: [product.id],
      category_ids: [category.id],
      updated_at: expect.stringMatching(ISO),
    });
    expect(res.json().data.updated_at).not.toBe(d.updated_at);
    const cleared = await a.patch(`/api/v1/discounts/${d.id}`, {
      min_subtotal: null,
      ends_at: null,
      usage_limit: null,
      product_ids: [],
    });
    expect(cleared.json().data).toMatchObject({
      min_subtotal: null,
      ends_at: null,
      usage_limit: null,
      product_ids: [],
      category_ids: [category.id],
    });
  });

  it('changes the code, case-insensitively unique, and can make a discount automatic', async () => {
    const taken = await createDiscount(a, { code: `TAKEN-${unique()}` });
    const d = await createDiscount(a);
    const clash = await a.patch(`/api/v1/discounts/${d.id}`, { code: taken.code?.toLowerCase() });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error.code).toBe('conflict');
    // Its own code in another case is not a clash.
    const recased = await a.patch(`/api/v1/discounts/${d.id}`, { code: d.code?.toLowerCase() });
    expect(recased.json().data.code).toBe(d.code?.toLowerCase());
    const automatic = await a.patch(`/api/v1/discounts/${d.id}`, { code: null });
    expect(automatic.json().data).toMatchObject({ code: null, title: d.title });
  });

  it('requires a value when the type changes, except to free shipping', async () => {
    const d = await createDiscount(a, { value: '15' });
    const missing = await a.patch(`/api/v1/discounts/${d.id}`, { type: 'fixed_amount' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details).toEqual([
      { field: 'value', message: 'is required for a fixed_amount discount' },
    ]);
    const fixed = await a.patch(`/api/v1/discounts/${d.id}`, { type: 'fixed_amount', value: '3.50' });
    expect(fixed.json().data).toMatchObject({ type: 'fixed_amount', value: '3.50' });
    const value = await a.patch(`/api/v1/discounts/${d.id}`, { value: '4' });
    expect(value.json().data).toMatchObject({ type: 'fixed_amount', value: '4.00' });
    const ship = await a.patch(`/api/v1/discounts/${d.id}`, { type: 'free_shipping' });
    expect(ship.json().data).toMatchObject({ type: 'free_shipping', value: '0' });
    const bad = await a.patch(`/api/v1/discounts/${d.id}`, { value: '101' });
    expect(bad.statusCode).toBe(400);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['ends_at before the current starts_at', { ends_at: '2026-01-01T00:00:00.000Z' }, 'ends_at'],
    ['starts_at after the current ends_at', { starts_at: '2031-01-01T00:00:00.000Z' }, 'ends_at'],
    ['an unknown product id', { product_ids: [randomUUID()] }, 'product_ids'],
    ['an unknown category id', { category_ids: [randomUUID()] }, 'category_ids'],
    ['a percentage over 100', { value: '150' }, 'value'],
    ['a null type', { type: null }, 'type'],
    ['a read-only usage_count', { usage_count: 0 }, 'usage_count'],
    ['an empty body', {}, 'body'],
  ])('refuses %s with 400 and changes nothing', async (_, patch, field) => {
    const d = await createDiscount(a, {
      starts_at: '2030-01-01T00:00:00.000Z',
      ends_at: '2030-06-01T00:00:00.000Z',
    });
    const res = await a.patch(`/api/v1/discounts/${d.id}`, patch);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(res.json().error.details.map((x: { field: string }) => x.field)).toContain(field);
    expect(await getDiscount(a, d.id)).toEqual(d);
  });

  it('keeps a deleted product listed (it matches nothing) and accepts the list sent back', async () => {
    const kept = await createProduct(a);
    const gone = await createProduct(a);
    const d = await createDiscount(a, { product_ids: [kept.id, gone.id] });
    expect((await a.del(`/api/v1/products/${gone.id}`)).statusCode).toBe(204);
    expect((await getDiscount(a, d.id)).product_ids.sort()).toEqual([kept.id, gone.id].sort());
    const same = await a.patch(`/api/v1/discounts/${d.id}`, { product_ids: [gone.id, kept.id], title: 'x' });
    expect(same.statusCode).toBe(200);
    const fresh = await a.patch(`/api/v1/discounts/${d.id}`, { product_ids: [kept.id] });
    expect(fresh.json().data.product_ids).toEqual([kept.id]);
    // Once dropped, the deleted id is unknown again.
    expect((await a.patch(`/api/v1/discounts/${d.id}`, { product_ids: [gone.id] })).statusCode).toBe(400);
  });
});

describe('DELETE /api/v1/discounts/{id}', () => {
  it('answers 204 and the discount is gone; its code can be used again', async () => {
    const d = await createDiscount(a);
    const res = await a.del(`/api/v1/discounts/${d.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await a.get(`/api/v1/discounts/${d.id}`)).statusCode).toBe(404);
    expect((await a.del(`/api/v1/discounts/${d.id}`)).statusCode).toBe(404);
    expect((await createDiscount(a, { code: d.code })).code).toBe(d.code);
  });
});

describe('GET /api/v1/discounts', () => {
  it('lists newest first with pagination, and filters by active and by q on code or title', async () => {
    const store = client(app, (await createStoreWithKey(app)).key);
    const made: DiscountData[] = [];
    made.push(await createDiscount(store, { code: 'ALPHA', title: 'Spring promo' }));
    made.push(await createDiscount(store, { code: 'BRAVO', title: 'Summer promo', active: false }));
    made.push(await createDiscount(store, { code: null, title: 'Automatic summer', type: 'free_shipping' }));
    made.push(await createDiscount(store, { code: 'charlie', title: 'Loyalty' }));
    made.push(await createDiscount(store, { code: 'DELTA', title: 'Old', active: false }));

    const res = await store.get('/api/v1/discounts');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((d: DiscountData) => d.id)).toEqual(made.map((d) => d.id).reverse());
    expect(res.json().data[0]).toEqual(made[4]);
    expect(res.json().meta.pagination).toEqual({
      page: 1,
      limit: 20,
      total: 5,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });

    const page = (await store.get('/api/v1/discounts?page=2&limit=2')).json();
    expect(page.data.map((d: DiscountData) => d.code)).toEqual([null, 'BRAVO']);
    expect(page.meta.pagination).toEqual({
      page: 2,
      limit: 2,
      total: 5,
      total_pages: 3,
      has_next: true,
      has_prev: true,
    });
    const beyond = (await store.get('/api/v1/discounts?page=9&limit=2')).json();
    expect(beyond.data).toEqual([]);
    expect(beyond.meta.pagination).toMatchObject({ total: 5, has_next: false, has_prev: true });

    const inactive = (await store.get('/api/v1/discounts?active=false')).json();
    expect(inactive.data.map((d: DiscountData) => d.code)).toEqual(['DELTA', 'BRAVO']);
    expect(inactive.meta.pagination.total).toBe(2);
    const active = (await store.get('/api/v1/discounts?active=true')).json();
    expect(active.meta.pagination.total).toBe(3);

    const summer = (await store.get('/api/v1/discounts?q=SUMMER')).json();
    expect(summer.data.map((d: DiscountData) => d.title)).toEqual(['Automatic summer', 'Summer promo']);
    const byCode = (await store.get('/api/v1/discounts?q=CHAR')).json();
    expect(byCode.data.map((d: DiscountData) => d.code)).toEqual(['charlie']);
    const both = (await store.get('/api/v1/discounts?q=summer&active=true')).json();
    expect(both.data.map((d: DiscountData) => d.title)).toEqual(['Automatic summer']);
    expect((await store.get('/api/v1/discounts?q=100%25')).json().data).toEqual([]);
  });

  it.each(['limit=0', 'limit=101', 'page=0', 'page=abc', 'active=maybe'])(
    'refuses ?%s with 400',
    async (query) => {
      const res = await a.get(`/api/v1/discounts?${query}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    },
  );
});

describe('cross-store and scopes', () => {
  it('answers 404 to store B for store A’s discount and never lists it', async () => {
    const d = await createDiscount(a, { code: `ONLYA-${unique()}` });
    for (const res of [
      await b.get(`/api/v1/discounts/${d.id}`),
      await b.patch(`/api/v1/discounts/${d.id}`, { title: 'Stolen' }),
      await b.del(`/api/v1/discounts/${d.id}`),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: { code: 'not_found', message: 'discount not found' } });
    }
    expect(await getDiscount(a, d.id)).toEqual(d);
    expect((await b.get(`/api/v1/discounts?q=${d.code}`)).json().data).toEqual([]);
  });

  it('answers 404 for ids that are not UUIDs', async () => {
    for (const res of [
      await a.get('/api/v1/discounts/not-a-uuid'),
      await a.patch('/api/v1/discounts/not-a-uuid', { title: 'x' }),
      await a.del('/api/v1/discounts/not-a-uuid'),
    ]) {
      expect(res.statusCode).toBe(404);
    }
  });

  it('lets discounts:read read but not write, discounts:write write but not read', async () => {
    const { store, key: readKey } = await createStoreWithKey(app, { scopes: ['discounts:read'] });
    const admin = client(app, (await app.services.stores.createApiKey(store.id, { scopes: 'all' })).key);
    const d = await createDiscount(admin);
    const reader = client(app, readKey);
    expect((await reader.get('/api/v1/discounts')).json().data).toEqual([d]);
    expect((await reader.get(`/api/v1/discounts/${d.id}`)).json().data).toEqual(d);
    for (const res of [
      await reader.post('/api/v1/discounts', { code: 'NOPE', type: 'percentage', value: '5' }),
      await reader.patch(`/api/v1/discounts/${d.id}`, { title: 'x' }),
      await reader.del(`/api/v1/discounts/${d.id}`),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
    }
    expect(await getDiscount(admin, d.id)).toEqual(d);

    const writer = client(
      app,
      (await app.services.stores.createApiKey(store.id, { scopes: ['discounts:write'] })).key,
    );
    const created = await writer.post('/api/v1/discounts', {
      code: 'WRITER',
      type: 'percentage',
      value: '5',
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id;
    expect((await writer.patch(`/api/v1/discounts/${id}`, { title: 'Renamed' })).statusCode).toBe(200);
    expect((await writer.get(`/api/v1/discounts/${id}`)).statusCode).toBe(403);
    expect((await writer.get('/api/v1/discounts')).statusCode).toBe(403);
    expect((await writer.del(`/api/v1/discounts/${id}`)).statusCode).toBe(204);
  });

  it('refuses a key without discounts scopes (403) and a request without a key (401)', async () => {
    const d = await createDiscount(a);
    const { key } = await createStoreWithKey(app, {
      scopes: ['products:read', 'products:write', 'orders:write'],
    });
    const other = client(app, key);
    for (const res of [
      await other.get('/api/v1/discounts'),
      await other.get(`/api/v1/discounts/${d.id}`),
      await other.post('/api/v1/discounts', { code: 'NOPE', type: 'percentage', value: '5' }),
      await other.patch(`/api/v1/discounts/${d.id}`, { title: 'x' }),
      await other.del(`/api/v1/discounts/${d.id}`),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
    }
    expect((await client(app).get('/api/v1/discounts')).statusCode).toBe(401);
    expect((await client(app).post('/api/v1/discounts', {})).statusCode).toBe(401);
  });
});

describe('Idempotency-Key on POST /api/v1/discounts', () => {
  it('replays the first response for the same key and body, creating one discount', async () => {
    const code = `IDEM-${unique()}`;
    const body = { code, type: 'fixed_amount', value: '2.00' };
    const headers = { 'idempotency-key': `discount-${randomUUID()}` };
    const first = await a.post('/api/v1/discounts', body, headers);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await a.post('/api/v1/discounts', body, headers);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    expect((await a.get(`/api/v1/discounts?q=${code}`)).json().meta.pagination.total).toBe(1);
  });

  it('answers 409 for the same key with another body, creating nothing', async () => {
    const code = `IDEM-${unique()}`;
    const headers = { 'idempotency-key': `discount-${randomUUID()}` };
    expect(
      (await a.post('/api/v1/discounts', { code, type: 'percentage', value: '5' }, headers)).statusCode,
    ).toBe(201);
    const other = await a.post('/api/v1/discounts', { code, type: 'percentage', value: '6' }, headers);
    expect(other.statusCode).toBe(409);
    expect(other.json().error.message).toMatch(/Idempotency-Key/);
    expect(
      (await a.get(`/api/v1/discounts?q=${code}`)).json().data.map((d: DiscountData) => d.value),
    ).toEqual(['5']);
  });
});

describe('OpenAPI', () => {
  it('documents every discount operation with its scope and the Discount schema', async () => {
    const doc = (await app.server.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operations: [string, string, string][] = [
      ['/api/v1/discounts', 'get', 'discounts:read'],
      ['/api/v1/discounts', 'post', 'discounts:write'],
      ['/api/v1/discounts/{id}', 'get', 'discounts:read'],
      ['/api/v1/discounts/{id}', 'patch', 'discounts:write'],
      ['/api/v1/discounts/{id}', 'delete', 'discounts:write'],
    ];
    for (const [path, method, scope] of operations) {
      expect(doc.paths[path]?.[method]?.['x-required-scope']).toBe(scope);
    }
    expect(Object.keys(doc.components.schemas.Discount.properties)).toEqual([
      'id',
      'code',
      'title',
      'type',
      'value',
      'min_subtotal',
      'starts_at',
      'ends_at',
      'usage_limit',
      'usage_count',
      'once_per_customer',
      'active',
      'product_ids',
      'category_ids',
      'created_at',
      'updated_at',
    ]);
  });
});

describe('resolve and redeem (the checkout service API)', () => {
  const cart = (subtotal: number, lines?: CheckoutCart['lines']): CheckoutCart => ({
    lines: lines ?? [{ productId: randomUUID(), categoryIds: [], quantity: 1, unitPrice: subtotal }],
    subtotal,
    shippingAmount: 500,
  });
  const resolve = (input: Parameters<TestApp['services']['discounts']['resolve']>[2], storeId = storeA) =>
    app.database.db.transaction().execute((tx) => app.services.discounts.resolve(tx, storeId, input));
  const redeem = (discountId: string, customerId: string | null = null, storeId = storeA) =>
    app.database.db
      .transaction()
      .execute((tx) =>
        app.services.discounts.redeem(
          tx,
          storeId,
          { discountId },
          { customerId, orderId: randomUUID(), field: 'coupon_code' },
        ),
      );

  async function expectInvalidCoupon(promise: Promise<unknown>, message: RegExp) {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    expect(appError.statusCode).toBe(400);
    expect(appError.code).toBe('invalid_request');
    expect(appError.message).toMatch(/^coupon code ".*" is not valid: /);
    expect(appError.details).toEqual([{ field: 'couponCode', message: expect.stringMatching(message) }]);
  }

  it('resolves a code case-insensitively, with surrounding spaces, to the stored spelling', async () => {
    const code = `Resolve-${unique()}`;
    const d = await createDiscount(a, { code, type: 'percentage', value: '12.5' });
    const applied = await resolve({ code: ` ${code.toLowerCase()} `, cart: cart(1999), field: 'couponCode' });
    // 12.5 % of 19.99 = 2.49875 → 2.50
    expect(applied).toEqual({ discountId: d.id, code, amount: 250, freeShipping: false });
    const ship = await createDiscount(a, { type: 'free_shipping' });
    expect(await resolve({ code: ship.code, cart: cart(1000), field: 'couponCode' })).toEqual({
      discountId: ship.id,
      code: ship.code,
      amount: 0,
      freeShipping: true,
    });
  });

  it('refuses an unknown, inactive, expired, future, below-minimum or foreign code with 400', async () => {
    await expectInvalidCoupon(
      resolve({ code: 'NO-SUCH-CODE', cart: cart(1000), field: 'couponCode' }),
      /no discount/,
    );
    const inactive = await createDiscount(a, { active: false });
    await expectInvalidCoupon(
      resolve({ code: inactive.code, cart: cart(1000), field: 'couponCode' }),
      /not active/,
    );
    const expired = await createDiscount(a, { starts_at: at(-2 * HOUR), ends_at: at(-HOUR) });
    await expectInvalidCoupon(
      resolve({ code: expired.code, cart: cart(1000), field: 'couponCode' }),
      /expired/,
    );
    const future = await createDiscount(a, { starts_at: at(HOUR) });
    await expectInvalidCoupon(
      resolve({ code: future.code, cart: cart(1000), field: 'couponCode' }),
      /not started/,
    );
    const minimum = await createDiscount(a, { min_subtotal: '50.00' });
    await expectInvalidCoupon(
      resolve({ code: minimum.code, cart: cart(4999), field: 'couponCode' }),
      /below its minimum of 50\.00/,
    );
    expect((await resolve({ code: minimum.code, cart: cart(5000), field: 'couponCode' }))?.amount).toBe(500);
    const product = await createProduct(a);
    const limited = await createDiscount(a, { product_ids: [product.id] });
    await expectInvalidCoupon(
      resolve({ code: limited.code, cart: cart(1000), field: 'couponCode' }),
      /no item/,
    );
    const line = { productId: product.id, categoryIds: [], quantity: 2, unitPrice: 1000 };
    expect(
      (await resolve({ code: limited.code, cart: cart(3000, [line]), field: 'couponCode' }))?.amount,
    ).toBe(200);
    const ofB = await createDiscount(b);
    await expectInvalidCoupon(
      resolve({ code: ofB.code, cart: cart(1000), field: 'couponCode' }),
      /no discount/,
    );
  });

  it('refuses an exhausted code and one this customer already used', async () => {
    const [customer, other] = await customersOf(storeA, 2);
    const single = await createDiscount(a, { usage_limit: 1 });
    expect((await resolve({ code: single.code, cart: cart(1000), field: 'couponCode' }))?.amount).toBe(100);
    expect(await redeem(single.id)).toEqual({ redemptionId: expect.any(String), usageCount: 1 });
    await expectInvalidCoupon(
      resolve({ code: single.code, cart: cart(1000), field: 'couponCode' }),
      /usage limit/,
    );
    expect((await getDiscount(a, single.id)).usage_count).toBe(1);

    const once = await createDiscount(a, { once_per_customer: true });
    await redeem(once.id, customer);
    await expectInvalidCoupon(
      resolve({ code: once.code, customerId: customer, cart: cart(1000), field: 'couponCode' }),
      /already been used/,
    );
    const forOther = await resolve({
      code: once.code,
      customerId: other,
      cart: cart(1000),
      field: 'couponCode',
    });
    expect(forOther?.discountId).toBe(once.id);
  });

  it('without a code, picks the best eligible automatic discount, or null', async () => {
    const { store, key } = await createStoreWithKey(app);
    const api = client(app, key);
    expect(await resolve({ cart: cart(10_000), field: 'couponCode' }, store.id)).toBeNull();
    await createDiscount(api, { code: 'CODED', value: '90' }); // codes are never automatic
    const ten = await createDiscount(api, { code: null, title: '10 %', value: '10' });
    await createDiscount(api, { code: null, title: 'Off', value: '50', active: false });
    await createDiscount(api, { code: null, title: 'Big spenders', value: '40', min_subtotal: '500.00' });
    const ship = await createDiscount(api, { code: null, title: 'Ship', type: 'free_shipping' });
    // 10 % of 100.00 = 10.00 beats 5.00 of shipping.
    expect(await resolve({ cart: cart(10_000), field: 'couponCode' }, store.id)).toEqual({
      discountId: ten.id,
      code: null,
      amount: 1000,
      freeShipping: false,
    });
    // 10 % of 20.00 = 2.00 loses to 5.00 of shipping.
    expect(await resolve({ code: '  ', cart: cart(2000), field: 'couponCode' }, store.id)).toEqual({
      discountId: ship.id,
      code: null,
      amount: 0,
      freeShipping: true,
    });
  });

  it('skips an automatic once-per-customer discount the customer already redeemed', async () => {
    const { store, key } = await createStoreWithKey(app);
    const api = client(app, key);
    const [customer] = await customersOf(store.id, 1);
    const big = await createDiscount(api, {
      code: null,
      title: 'Welcome',
      value: '30',
      once_per_customer: true,
    });
    const small = await createDiscount(api, { code: null, title: 'Always', value: '5' });
    const input = { customerId: customer, cart: cart(1000), field: 'couponCode' };
    expect((await resolve(input, store.id))?.discountId).toBe(big.id);
    await redeem(big.id, customer, store.id);
    expect((await resolve(input, store.id))?.discountId).toBe(small.id);
  });

  it('redeem counts the use, records the redemption, and refuses over the limit as the evaluation does (400)', async () => {
    const d = await createDiscount(a, { usage_limit: 2 });
    const [customer] = await customersOf(storeA, 1);
    const orderId = randomUUID();
    const result = await app.database.db
      .transaction()
      .execute((tx) =>
        app.services.discounts.redeem(
          tx,
          storeA,
          { discountId: d.id },
          { customerId: customer ?? null, orderId, field: 'coupon_code' },
        ),
      );
    expect(result.usageCount).toBe(1);
    const rows = await app.database.db
      .selectFrom('discount_redemptions')
      .selectAll()
      .where('discount_id', '=', d.id)
      .execute();
    expect(rows).toEqual([
      {
        id: result.redemptionId,
        store_id: storeA,
        discount_id: d.id,
        customer_id: customer,
        order_id: orderId,
        created_at: expect.any(Date),
      },
    ]);
    await redeem(d.id);
    await expect(redeem(d.id)).rejects.toMatchObject({
      statusCode: 400,
      code: 'invalid_request',
      details: [{ field: 'coupon_code', message: 'its usage limit has been reached' }],
    });
    expect((await getDiscount(a, d.id)).usage_count).toBe(2);
    // Another store cannot redeem it (to that store the discount does not exist).
    const { store: other } = await createStoreWithKey(app);
    await expect(redeem(d.id, null, other.id)).rejects.toMatchObject({ statusCode: 409 });
  });

  it('an automatic discount used up between evaluation and redeem is 409: the shopper named no coupon', async () => {
    const d = await createDiscount(a, { code: null, title: `Auto ${unique()}`, usage_limit: 1 });
    await redeem(d.id);
    await expect(redeem(d.id)).rejects.toMatchObject({ statusCode: 409, code: 'conflict' });
  });

  it('rolls the count back with the caller’s transaction', async () => {
    const d = await createDiscount(a, { usage_limit: 1 });
    await expect(
      app.database.db.transaction().execute(async (tx) => {
        await app.services.discounts.redeem(
          tx,
          storeA,
          { discountId: d.id },
          { customerId: null, orderId: randomUUID(), field: 'coupon_code' },
        );
        throw new Error('payment declined');
      }),
    ).rejects.toThrow('payment declined');
    expect((await getDiscount(a, d.id)).usage_count).toBe(0);
    expect((await redeem(d.id)).usageCount).toBe(1);
  });
});

describe('concurrent redemptions (real database, no mocks)', () => {
  // A pool of its own, wider than the app's, so many transactions really contend for the row.
  const pool = { handle: undefined as ReturnType<typeof openDatabase> | undefined };
  beforeAll(() => {
    pool.handle = openDatabase(app.testDatabase.url, { max: 20 });
  });
  afterAll(() => pool.handle?.close());

  /** One order transaction: redeem, then hold the row lock a little before committing. */
  const checkout = (discountId: string, customerId: string | null) => {
    const db = pool.handle?.db;
    if (!db) throw new Error('no pool');
    return db.transaction().execute(async (tx) => {
      const result = await app.services.discounts.redeem(
        tx,
        storeA,
        { discountId },
        { customerId, orderId: randomUUID(), field: 'coupon_code' },
      );
      await sql`SELECT pg_sleep(0.01)`.execute(tx);
      return result;
    });
  };

  const redemptions = (discountId: string) =>
    app.database.db
      .selectFrom('discount_redemptions')
      .select(['customer_id'])
      .where('store_id', '=', storeA)
      .where('discount_id', '=', discountId)
      .execute();

  it('a usage_limit of 10 under 100 parallel checkouts is used exactly 10 times', async () => {
    const d = await createDiscount(a, { usage_limit: 10 });
    const results = await Promise.allSettled(Array.from({ length: 100 }, () => checkout(d.id, null)));
    const succeeded = results.filter((r) => r.status === 'fulfilled');
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(succeeded).toHaveLength(10);
    expect(failed).toHaveLength(90);
    for (const f of failed) {
      expect(f.reason).toMatchObject({
        statusCode: 400,
        code: 'invalid_request',
        details: [{ field: 'coupon_code', message: 'its usage limit has been reached' }],
      });
    }
    expect(
      succeeded
        .map((r) => (r as PromiseFulfilledResult<{ usageCount: number }>).value.usageCount)
        .sort((x, y) => x - y),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect((await getDiscount(a, d.id)).usage_count).toBe(10);
    expect(await redemptions(d.id)).toHaveLength(10);
  });

  it('a once-per-customer discount redeemed twice at once by one customer succeeds once', async () => {
    const d = await createDiscount(a, { once_per_customer: true });
    const customers = await customersOf(storeA, 5);
    // Each customer tries twice at the same time; all ten run in parallel.
    const attempts = customers.flatMap((c) => [checkout(d.id, c), checkout(d.id, c)]);
    const results = await Promise.allSettled(attempts);
    for (let i = 0; i < customers.length; i++) {
      const pair = results.slice(2 * i, 2 * i + 2);
      expect(pair.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = pair.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(rejected?.reason).toMatchObject({
        statusCode: 400,
        code: 'invalid_request',
        details: [{ field: 'coupon_code', message: 'it has already been used by this customer' }],
      });
    }
    expect((await getDiscount(a, d.id)).usage_count).toBe(5);
    const rows = await redemptions(d.id);
    expect(rows.map((r) => r.customer_id).sort()).toEqual([...customers].sort());
  });
});
