import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  eventsOf,
  type ProductData,
  sizedProduct,
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
  storeAId = storeA.store.id;
  a = client(app, storeA.key);
  b = client(app, (await createStoreWithKey(app)).key);
});
afterAll(() => app.close());

const level = async (id: string, type = 'product') =>
  (await a.get(`/api/v1/inventory/${id}?type=${type}`)).json().data;
const adjust = (id: string, adjustment: number, type = 'product', api = a) =>
  api.patch(`/api/v1/inventory/${id}`, { type, adjustment });
const history = async (id: string) => (await a.get(`/api/v1/inventory/${id}/adjustments`)).json().data;

describe('GET /api/v1/inventory/{id}', () => {
  it('answers the product level by default, without variants', async () => {
    const p = await createProduct(a, { inventory: 12 });
    const res = await a.get(`/api/v1/inventory/${p.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        id: p.id,
        type: 'product',
        product_id: p.id,
        variant_id: null,
        inventory: 12,
        track_inventory: true,
        low_stock_threshold: 5,
        stock_status: 'in_stock',
      },
    });
    expect((await a.get(`/api/v1/inventory/${p.id}?type=product`)).json()).toEqual(res.json());
  });

  it('lists the variants of a product that has them, and answers a variant level with type=variant', async () => {
    const p = await createProduct(a, sizedProduct({ S: 0, M: 3, L: 9 }));
    const [s, m, l] = p.variants;
    expect(await level(p.id)).toEqual({
      id: p.id,
      type: 'product',
      product_id: p.id,
      variant_id: null,
      inventory: 12,
      track_inventory: true,
      low_stock_threshold: 5,
      stock_status: 'in_stock',
      variants: [
        { id: s?.id, title: 'S', sku: s?.sku, inventory: 0, stock_status: 'out_of_stock' },
        { id: m?.id, title: 'M', sku: null, inventory: 3, stock_status: 'low_stock' },
        { id: l?.id, title: 'L', sku: null, inventory: 9, stock_status: 'in_stock' },
      ],
    });
    expect(await level(m?.id as string, 'variant')).toEqual({
      id: m?.id,
      type: 'variant',
      product_id: p.id,
      variant_id: m?.id,
      inventory: 3,
      track_inventory: true,
      low_stock_threshold: 5,
      stock_status: 'low_stock',
    });
  });

  it.each([
    [6, null, true, 'in_stock'],
    [5, null, true, 'low_stock'],
    [1, null, true, 'low_stock'],
    [0, null, true, 'out_of_stock'],
    [6, 10, true, 'low_stock'],
    [11, 10, true, 'in_stock'],
    [1, 0, true, 'in_stock'],
    [0, 0, true, 'out_of_stock'],
    [0, null, false, 'in_stock'],
  ])('inventory %i, threshold %s, tracked %s → %s', async (inventory, threshold, tracked, status) => {
    const p = await createProduct(a, { inventory, low_stock_threshold: threshold, track_inventory: tracked });
    const data = await level(p.id);
    expect(data.stock_status).toBe(status);
    expect(data.low_stock_threshold).toBe(threshold ?? 5);
  });

  it('follows the store default threshold when the product has none', async () => {
    const { store, key } = await createStoreWithKey(app);
    const api = client(app, key);
    const p = await createProduct(api, { inventory: 7 });
    const own = await createProduct(api, { inventory: 7, low_stock_threshold: 2 });
    await app.database.db
      .updateTable('stores')
      .set({ low_stock_threshold: 8 })
      .where('id', '=', store.id)
      .execute();
    const data = (await api.get(`/api/v1/inventory/${p.id}`)).json().data;
    expect(data).toMatchObject({ low_stock_threshold: 8, stock_status: 'low_stock' });
    const ownData = (await api.get(`/api/v1/inventory/${own.id}`)).json().data;
    expect(ownData).toMatchObject({ low_stock_threshold: 2, stock_status: 'in_stock' });
  });

  it('answers 404 for unknown, malformed, wrong-type and other-store ids; 400 for an unknown type', async () => {
    const p = await createProduct(a, sizedProduct({ S: 1, M: 1 }));
    for (const url of [
      `/api/v1/inventory/${randomUUID()}`,
      '/api/v1/inventory/nope',
      `/api/v1/inventory/${p.id}?type=variant`,
      `/api/v1/inventory/${p.variants[0]?.id}?type=product`,
    ]) {
      const res = await a.get(url);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
    for (const url of [`/api/v1/inventory/${p.id}`, `/api/v1/inventory/${p.variants[0]?.id}?type=variant`]) {
      expect((await b.get(url)).statusCode).toBe(404);
    }
    expect((await a.get(`/api/v1/inventory/${p.id}?type=warehouse`)).statusCode).toBe(400);
  });
});

describe('PATCH /api/v1/inventory/{id}', () => {
  it('applies the adjustment and answers { id, type, previous, adjustment, inventory, stock_status }', async () => {
    const p = await createProduct(a, { inventory: 10 });
    const res = await a.patch(`/api/v1/inventory/${p.id}`, {
      type: 'product',
      adjustment: -4,
      reason: 'damaged',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        id: p.id,
        type: 'product',
        previous: 10,
        adjustment: -4,
        inventory: 6,
        stock_status: 'in_stock',
      },
    });
    const untyped = await a.patch(`/api/v1/inventory/${p.id}`, { adjustment: -1 });
    expect(untyped.json().data).toEqual({
      id: p.id,
      type: 'product',
      previous: 6,
      adjustment: -1,
      inventory: 5,
      stock_status: 'low_stock',
    });
    expect((await a.get(`/api/v1/products/${p.id}`)).json().data.inventory).toBe(5);
  });

  it.each([
    ['a zero adjustment', { adjustment: 0 }],
    ['a fractional adjustment', { adjustment: 1.5 }],
    ['a string adjustment', { adjustment: '5' }],
    ['no adjustment', { type: 'product' }],
    ['an unknown type', { type: 'warehouse', adjustment: 1 }],
    ['an unknown field', { adjustment: 1, note: 'x' }],
  ])('refuses %s with 400 and changes nothing', async (_, body) => {
    const p = await createProduct(a, { inventory: 3 });
    const res = await a.patch(`/api/v1/inventory/${p.id}`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(res.json().error.details.length).toBeGreaterThan(0);
    expect((await level(p.id)).inventory).toBe(3);
  });

  it('refuses to take tracked stock below zero with 409 insufficient_stock, changing nothing', async () => {
    const p = await createProduct(a, { inventory: 2 });
    const before = await history(p.id);
    const res = await adjust(p.id, -3);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('insufficient_stock');
    expect((await level(p.id)).inventory).toBe(2);
    expect(await history(p.id)).toEqual(before);
    expect((await adjust(p.id, -2)).json().data).toMatchObject({
      inventory: 0,
      stock_status: 'out_of_stock',
    });
  });

  it('lets untracked stock go anywhere, even below zero', async () => {
    const p = await createProduct(a, { inventory: 1, track_inventory: false });
    const res = await adjust(p.id, -5);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ previous: 1, inventory: -4, stock_status: 'in_stock' });
    expect((await adjust(p.id, 10)).json().data.inventory).toBe(6);
    expect(await eventsOf(app.database.db, storeAId)).not.toContainEqual(
      expect.objectContaining({ data: expect.objectContaining({ productName: p.name }) }),
    );
  });

  it('adjusts a product with variants only through its variants; the total moves by the same delta', async () => {
    const p = await createProduct(a, sizedProduct({ S: 4, M: 6 }));
    const [s, m] = p.variants as [ProductData['variants'][0], ProductData['variants'][0]];
    const productLevel = await adjust(p.id, 1);
    expect(productLevel.statusCode).toBe(400);
    expect(productLevel.json().error.code).toBe('invalid_request');

    const res = await adjust(s.id, -3, 'variant');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      id: s.id,
      type: 'variant',
      previous: 4,
      adjustment: -3,
      inventory: 1,
      stock_status: 'low_stock',
    });
    expect((await level(p.id)).inventory).toBe(7);
    expect((await adjust(m.id, 5, 'variant')).json().data.inventory).toBe(11);
    expect((await level(p.id)).inventory).toBe(12);

    const short = await adjust(s.id, -2, 'variant');
    expect(short.statusCode).toBe(409);
    expect(short.json().error.code).toBe('insufficient_stock');
    expect((await level(s.id, 'variant')).inventory).toBe(1);
    expect((await level(p.id)).inventory).toBe(12);
    // A variant id adjusted as a product, and a product id adjusted as a variant, name nothing.
    expect((await adjust(s.id, 1, 'product')).statusCode).toBe(404);
    expect((await adjust(p.id, 1, 'variant')).statusCode).toBe(404);
  });

  it('answers 404 to another store, and leaves the level alone', async () => {
    const p = await createProduct(a, sizedProduct({ S: 2, M: 2 }));
    expect((await adjust(p.id, 1, 'product', b)).statusCode).toBe(404);
    expect((await adjust(p.variants[0]?.id as string, -1, 'variant', b)).statusCode).toBe(404);
    expect((await b.get(`/api/v1/inventory/${p.id}/adjustments`)).statusCode).toBe(404);
    expect((await level(p.id)).inventory).toBe(4);
  });

  it('keeps inventory:read and inventory:write apart', async () => {
    const p = await createProduct(a, { inventory: 3 });
    const reader = client(
      app,
      (await app.services.stores.createApiKey(storeAId, { scopes: ['inventory:read'] })).key,
    );
    const writer = client(
      app,
      (await app.services.stores.createApiKey(storeAId, { scopes: ['inventory:write'] })).key,
    );
    expect((await reader.get(`/api/v1/inventory/${p.id}`)).statusCode).toBe(200);
    expect((await adjust(p.id, 1, 'product', reader)).statusCode).toBe(403);
    expect((await adjust(p.id, 1, 'product', writer)).statusCode).toBe(200);
    expect((await writer.get(`/api/v1/inventory/${p.id}`)).statusCode).toBe(403);
  });
});

describe('GET /api/v1/inventory/{id}/adjustments', () => {
  it('lists every change of the product and its variants, newest first', async () => {
    const p = await createProduct(a, sizedProduct({ S: 2, M: 3 }));
    const [s] = p.variants;
    await a.patch(`/api/v1/inventory/${s?.id}`, { type: 'variant', adjustment: 4, reason: 'restocked' });
    const res = await a.get(`/api/v1/inventory/${p.id}/adjustments`);
    expect(res.statusCode).toBe(200);
    const rows = res.json().data;
    expect(rows[0]).toEqual({
      id: expect.any(String),
      product_id: p.id,
      variant_id: s?.id,
      previous: 2,
      adjustment: 4,
      inventory: 6,
      reason: 'restocked',
      source: 'api',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    // The initial stock of each variant, set at creation.
    expect(
      rows.slice(1).map((r: { adjustment: number; source: string }) => [r.adjustment, r.source]),
    ).toEqual([
      [3, 'product_update'],
      [2, 'product_update'],
    ]);
    expect((await a.get(`/api/v1/inventory/${p.id}/adjustments?limit=1`)).json().data).toHaveLength(1);
    expect((await a.get(`/api/v1/inventory/${randomUUID()}/adjustments`)).statusCode).toBe(404);
  });
});

describe('stock events and concurrency', () => {
  /** Events of one product, by name, in the order they were recorded. */
  const productEvents = async (name: string) =>
    (await eventsOf(app.database.db, storeAId)).filter((e) => e.data.productName === name);
  /** The seed's two fields of an event (the test below checks the others). */
  const seedFields = (e: { data: Record<string, unknown> }) => ({
    productName: e.data.productName,
    inventory: e.data.inventory,
  });

  it('fires low_stock once per crossing of the threshold and out_of_stock on reaching zero', async () => {
    const p = await createProduct(a, { inventory: 10 });
    const names = async () => (await productEvents(p.name)).map((e) => e.name);

    await adjust(p.id, -5); // 10 → 5: crosses
    expect(await names()).toEqual(['product.low_stock']);
    await adjust(p.id, -1); // 5 → 4: already low
    expect(await names()).toEqual(['product.low_stock']);
    await adjust(p.id, 6); // back up to 10
    await adjust(p.id, -7); // 10 → 3: crosses again
    expect(await names()).toEqual(['product.low_stock', 'product.low_stock']);
    await adjust(p.id, -3); // 3 → 0
    await adjust(p.id, 2); // 0 → 2: nothing
    await adjust(p.id, -2); // 2 → 0 again
    const events = await productEvents(p.name);
    expect(events.map(seedFields)).toEqual([
      { productName: p.name, inventory: 5 },
      { productName: p.name, inventory: 3 },
      { productName: p.name, inventory: 0 },
      { productName: p.name, inventory: 0 },
    ]);
    expect(events.map((e) => e.name)).toEqual([
      'product.low_stock',
      'product.low_stock',
      'product.out_of_stock',
      'product.out_of_stock',
    ]);
  });

  it('says which product (id, sku) and threshold an event is about, even for two products of one name', async () => {
    const name = `Twin ${randomUUID()}`;
    const first = await createProduct(a, {
      name,
      sku: `SKU-${randomUUID()}`,
      inventory: 10,
      low_stock_threshold: 8,
    });
    const second = await createProduct(a, { name, inventory: 3 });
    await adjust(first.id, -3); // 10 → 7: below its own threshold of 8
    await adjust(second.id, -3); // 3 → 0
    const events = await productEvents(name);
    expect(events.map((e) => [e.name, e.data])).toEqual([
      [
        'product.low_stock',
        {
          productName: name,
          inventory: 7,
          productId: first.id,
          variantId: null,
          sku: first.sku,
          threshold: 8,
        },
      ],
      [
        'product.out_of_stock',
        { productName: name, inventory: 0, productId: second.id, variantId: null, sku: null, threshold: 5 },
      ],
    ]);
  });

  it('uses the product’s own threshold and fires for variant changes on the product total', async () => {
    const own = await createProduct(a, { inventory: 10, low_stock_threshold: 8 });
    await adjust(own.id, -2);
    expect((await productEvents(own.name)).map(seedFields)).toEqual([
      { productName: own.name, inventory: 8 },
    ]);

    const sized = await createProduct(a, sizedProduct({ S: 3, M: 3 }));
    await adjust(sized.variants[0]?.id as string, -1, 'variant'); // total 6 → 5
    await adjust(sized.variants[0]?.id as string, -2, 'variant'); // 5 → 3
    await adjust(sized.variants[1]?.id as string, -3, 'variant'); // 3 → 0
    const events = await productEvents(sized.name);
    expect(events.map((e) => [e.name, e.data.inventory])).toEqual([
      ['product.low_stock', 5],
      ['product.out_of_stock', 0],
    ]);
  });

  it('applies 50 parallel −1 on a stock of 50 without losing one, firing each event once', async () => {
    const p = await createProduct(a, { inventory: 50 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => adjust(p.id, -1)));
    expect(answers.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
    const previous = answers.map((r) => r.json().data.previous as number).sort((x, y) => x - y);
    expect(previous).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect((await level(p.id)).inventory).toBe(0);

    const events = await productEvents(p.name);
    expect(events.filter((e) => e.name === 'product.out_of_stock').map(seedFields)).toEqual([
      { productName: p.name, inventory: 0 },
    ]);
    expect(events.filter((e) => e.name === 'product.low_stock').map(seedFields)).toEqual([
      { productName: p.name, inventory: 5 },
    ]);
    expect(events).toHaveLength(2);
    expect((await a.get(`/api/v1/inventory/${p.id}/adjustments?limit=100`)).json().data).toHaveLength(51);
  });

  it('lets exactly 50 of 60 parallel −1 on a stock of 50 through; the other 10 get insufficient_stock', async () => {
    const p = await createProduct(a, { inventory: 50 });
    const answers = await Promise.all(Array.from({ length: 60 }, () => adjust(p.id, -1)));
    const ok = answers.filter((r) => r.statusCode === 200);
    const refused = answers.filter((r) => r.statusCode !== 200);
    expect(ok).toHaveLength(50);
    expect(refused).toHaveLength(10);
    for (const res of refused) {
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('insufficient_stock');
    }
    expect((await level(p.id)).inventory).toBe(0);
    const events = await productEvents(p.name);
    expect(events.map((e) => e.name).sort()).toEqual(['product.low_stock', 'product.out_of_stock']);
  });

  it('keeps a product the sum of its variants under parallel variant adjustments', async () => {
    const p = await createProduct(a, sizedProduct({ S: 20, M: 20 }));
    const [s, m] = p.variants;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => adjust((i % 2 ? s?.id : m?.id) as string, -1, 'variant')),
    );
    expect(answers.every((r) => r.statusCode === 200)).toBe(true);
    const data = await level(p.id);
    expect(data.inventory).toBe(10);
    expect(data.variants.map((v: { inventory: number }) => v.inventory)).toEqual([5, 5]);
  });
});

describe('stock status in the merchant products list', () => {
  it('marks each product in_stock, low_stock (at or below its effective threshold) or out_of_stock', async () => {
    const tag = randomUUID().slice(0, 8);
    const made = {
      plenty: await createProduct(a, { name: `List ${tag} plenty`, inventory: 6 }),
      atDefault: await createProduct(a, { name: `List ${tag} at default`, inventory: 5 }),
      ownThreshold: await createProduct(a, {
        name: `List ${tag} own`,
        inventory: 9,
        low_stock_threshold: 10,
      }),
      none: await createProduct(a, { name: `List ${tag} none`, inventory: 0 }),
      untracked: await createProduct(a, {
        name: `List ${tag} untracked`,
        inventory: 0,
        track_inventory: false,
      }),
      sized: await createProduct(a, { ...sizedProduct({ S: 1, M: 1 }), name: `List ${tag} sized` }),
    };
    const listed = (await a.get(`/api/v1/products?q=${tag}&limit=50`)).json().data as {
      id: string;
      stock_status: string;
    }[];
    const statusOf = (p: ProductData) => listed.find((row) => row.id === p.id)?.stock_status;
    expect(Object.fromEntries(Object.entries(made).map(([k, p]) => [k, statusOf(p)]))).toEqual({
      plenty: 'in_stock',
      atDefault: 'low_stock',
      ownThreshold: 'low_stock',
      none: 'out_of_stock',
      untracked: 'in_stock',
      sized: 'low_stock',
    });
    // A single product says the same.
    expect((await a.get(`/api/v1/products/${made.none.id}`)).json().data.stock_status).toBe('out_of_stock');
  });
});
