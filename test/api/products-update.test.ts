import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createCategory,
  createProduct,
  eventsOf,
  type ProductData,
  sizedProduct,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

let app: TestApp;
let a: Client;
let storeId: string;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  a = client(app, store.key);
});
afterAll(() => app.close());

async function patch(id: string, body: Record<string, unknown>): Promise<ProductData> {
  const res = await a.patch(`/api/v1/products/${id}`, body);
  if (res.statusCode !== 200) throw new Error(`PATCH answered ${res.statusCode}: ${res.body}`);
  const data = res.json().data as ProductData;
  expect((await a.get(`/api/v1/products/${id}`)).json().data).toEqual(data);
  return data;
}

/** The product level equals the sum of its variants, in the product record and in /inventory. */
async function expectSumOfVariants(p: ProductData, expected: number) {
  expect(p.variants.reduce((sum, v) => sum + v.inventory, 0)).toBe(expected);
  expect(p.inventory).toBe(expected);
  const level = (await a.get(`/api/v1/inventory/${p.id}`)).json().data;
  expect(level.inventory).toBe(expected);
  expect(level.variants.map((v: { id: string; inventory: number }) => [v.id, v.inventory])).toEqual(
    p.variants.map((v) => [v.id, v.inventory]),
  );
}

describe('PATCH /api/v1/products/{id}', () => {
  it('updates any field and leaves the others as they were', async () => {
    const category = await createCategory(a);
    const p = await createProduct(a, { name: 'Lamp', price: '10.00', compare_price: '15.00', sku: 'L-1' });
    const updated = await patch(p.id, {
      name: 'Desk Lamp',
      slug: 'desk-lamp',
      description: 'Bright',
      status: 'draft',
      price: 12.5,
      compare_price: null,
      sku: 'L-2',
      inventory: 9,
      track_inventory: false,
      low_stock_threshold: 3,
      category_ids: [category.id],
    });
    expect(updated).toMatchObject({
      id: p.id,
      name: 'Desk Lamp',
      slug: 'desk-lamp',
      description: 'Bright',
      status: 'draft',
      price: '12.50',
      compare_price: null,
      sku: 'L-2',
      inventory: 9,
      track_inventory: false,
      low_stock_threshold: 3,
      category_ids: [category.id],
      created_at: p.created_at,
    });
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(p.updated_at));

    const renamed = await patch(p.id, { name: 'Floor Lamp' });
    expect(renamed).toMatchObject({ name: 'Floor Lamp', slug: 'desk-lamp', price: '12.50', sku: 'L-2' });
    expect(await patch(p.id, { low_stock_threshold: null, category_ids: [] })).toMatchObject({
      low_stock_threshold: null,
      category_ids: [],
    });
  });

  it.each([
    ['an empty body', {}],
    ['an unknown field', { colour: 'red' }],
    ['an ill-formed price', { price: '1.999' }],
    ['a null name', { name: null }],
    ['an unknown category', { category_ids: [randomUUID()] }],
  ])('refuses %s with 400 and changes nothing', async (_, body) => {
    const p = await createProduct(a, { price: '3.00' });
    const res = await a.patch(`/api/v1/products/${p.id}`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect((await a.get(`/api/v1/products/${p.id}`)).json().data).toEqual(p);
  });

  it('refuses a slug used by another product with 409, and accepts its own slug', async () => {
    await createProduct(a, { slug: 'first-slug' });
    const p = await createProduct(a, { slug: 'second-slug' });
    const res = await a.patch(`/api/v1/products/${p.id}`, { slug: 'first-slug' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('conflict');
    expect((await patch(p.id, { slug: 'second-slug', name: 'Same slug' })).slug).toBe('second-slug');
  });

  it('replaces the image list', async () => {
    const p = await createProduct(a, {
      images: [
        { url: 'https://cdn.example.com/a.jpg' },
        { url: 'https://cdn.example.com/b.jpg', is_primary: true },
      ],
    });
    expect(p.images.map((i) => [i.url, i.is_primary, i.position])).toEqual([
      ['https://cdn.example.com/a.jpg', false, 0],
      ['https://cdn.example.com/b.jpg', true, 1],
    ]);
    const updated = await patch(p.id, {
      images: [
        { url: 'https://cdn.example.com/c.jpg', alt: 'c' },
        { url: 'https://cdn.example.com/v.mp4', media_type: 'video' },
      ],
    });
    expect(updated.images).toEqual([
      {
        id: expect.any(String),
        url: 'https://cdn.example.com/c.jpg',
        alt: 'c',
        is_primary: true,
        position: 0,
      },
    ]);
    expect(updated.media).toEqual([
      { id: expect.any(String), url: 'https://cdn.example.com/v.mp4', media_type: 'video' },
    ]);
    expect((await patch(p.id, { name: 'No image change' })).images).toEqual(updated.images);
    expect((await patch(p.id, { images: [] })).images).toEqual([]);
    const twoPrimary = await a.patch(`/api/v1/products/${p.id}`, {
      images: [
        { url: 'https://cdn.example.com/1.jpg', is_primary: true },
        { url: 'https://cdn.example.com/2.jpg', is_primary: true },
      ],
    });
    expect(twoPrimary.statusCode).toBe(400);
  });

  it('updates variants with ids, adds those without, deletes those left out; the total follows', async () => {
    const p = await createProduct(a, sizedProduct({ S: 3, M: 4 }));
    await expectSumOfVariants(p, 7);
    const [small, medium] = p.variants;
    if (!small || !medium) throw new Error('variants missing');

    // Update: only the given fields of S and M change.
    const updated = await patch(p.id, {
      variants: [
        { id: small.id, options: { Size: 'S' }, inventory: 10 },
        { id: medium.id, options: { Size: 'M' } },
      ],
    });
    expect(updated.variants).toEqual([
      { ...small, inventory: 10 },
      { ...medium, inventory: 4 },
    ]);
    await expectSumOfVariants(updated, 14);

    // Add: L is new, S and M stay.
    const added = await patch(p.id, {
      variants: [
        { id: small.id, options: { Size: 'S' } },
        { id: medium.id, options: { Size: 'M' }, price: '30.00', sku: 'M-NEW' },
        { options: { Size: 'L' }, inventory: 5 },
      ],
    });
    expect(added.variants).toHaveLength(3);
    expect(added.variants[1]).toMatchObject({ id: medium.id, price: '30.00', sku: 'M-NEW', inventory: 4 });
    expect(added.variants[2]).toMatchObject({
      title: 'L',
      price: '20.00',
      inventory: 5,
      options: { Size: 'L' },
    });
    await expectSumOfVariants(added, 19);
    const large = added.variants[2]?.id as string;

    // Delete: S is left out.
    const removed = await patch(p.id, {
      variants: [
        { id: medium.id, options: { Size: 'M' } },
        { id: large, options: { Size: 'L' }, inventory: 1 },
      ],
    });
    expect(removed.variants.map((v) => v.id)).toEqual([medium.id, large]);
    await expectSumOfVariants(removed, 5);

    // A variant adjustment then a product edit: still the sum.
    const adjusted = await a.patch(`/api/v1/inventory/${large}`, { type: 'variant', adjustment: 6 });
    expect(adjusted.statusCode).toBe(200);
    await expectSumOfVariants(await patch(p.id, { name: 'Sized, renamed' }), 11);

    // All variants removed: the product keeps no stock of its own, then can be given some.
    const none = await patch(p.id, { variants: [], options: [] });
    expect(none.variants).toEqual([]);
    expect(none.inventory).toBe(0);
    expect((await patch(p.id, { inventory: 8 })).inventory).toBe(8);
  });

  it('keeps a variant’s custom title while its options stay, and regenerates it when they change', async () => {
    const p = await createProduct(a, {
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [{ options: { Size: 'S' }, title: 'Small one', compare_price: '30.00' }],
    });
    const id = p.variants[0]?.id;
    const same = await patch(p.id, { variants: [{ id, options: { Size: 'S' }, inventory: 2 }] });
    expect(same.variants[0]).toMatchObject({ id, title: 'Small one', compare_price: '30.00', inventory: 2 });
    const moved = await patch(p.id, { variants: [{ id, options: { Size: 'M' } }] });
    expect(moved.variants[0]).toMatchObject({
      id,
      title: 'M',
      compare_price: '30.00',
      options: { Size: 'M' },
    });
    const cleared = await patch(p.id, {
      variants: [{ id, options: { Size: 'M' }, compare_price: null, sku: null }],
    });
    expect(cleared.variants[0]).toMatchObject({ compare_price: null, sku: null });
  });

  it('hands a product’s own stock over to the variants it gains', async () => {
    const p = await createProduct(a, { inventory: 6 });
    const updated = await patch(p.id, {
      options: [{ name: 'Colour', values: ['Red', 'Blue'] }],
      variants: [
        { options: { Colour: 'Red' }, inventory: 2 },
        { options: { Colour: 'Blue' }, inventory: 3 },
      ],
    });
    await expectSumOfVariants(updated, 5);
  });

  it('fires stock events for the net change of an edit, not for its intermediate steps', async () => {
    const events = async (name: string) =>
      (await eventsOf(app.database.db, storeId)).filter((e) => e.data.productName === name);

    // 6 on the product itself → 5 across two new variants: one low_stock crossing, no out_of_stock.
    const gaining = await createProduct(a, { inventory: 6 });
    await patch(gaining.id, {
      options: [{ name: 'Colour', values: ['Red', 'Blue'] }],
      variants: [
        { options: { Colour: 'Red' }, inventory: 2 },
        { options: { Colour: 'Blue' }, inventory: 3 },
      ],
    });
    expect((await events(gaining.name)).map((e) => [e.name, e.data])).toEqual([
      [
        'product.low_stock',
        {
          productName: gaining.name,
          inventory: 5,
          productId: gaining.id,
          variantId: null,
          sku: gaining.sku,
          threshold: 5,
        },
      ],
    ]);

    // 8 in S and M replaced by 8 in L: the level never really moved.
    const replaced = await createProduct(a, sizedProduct({ S: 4, M: 4 }));
    const after = await patch(replaced.id, { variants: [{ options: { Size: 'L' }, inventory: 8 }] });
    expect(after.inventory).toBe(8);
    expect(await events(replaced.name)).toEqual([]);

    // A real drop to zero through an edit still fires.
    await patch(replaced.id, {
      variants: [{ id: after.variants[0]?.id, options: { Size: 'L' }, inventory: 0 }],
    });
    expect((await events(replaced.name)).map((e) => [e.name, e.data.inventory])).toEqual([
      ['product.out_of_stock', 0],
    ]);
  });

  it('runs in parallel with variant adjustments without deadlock, keeping the total the sum', async () => {
    const p = await createProduct(a, sizedProduct({ S: 100, M: 100 }));
    const [s, m] = p.variants;
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 4 === 0
          ? a.patch(`/api/v1/products/${p.id}`, {
              variants: [
                { id: s?.id, options: { Size: 'S' }, inventory: 100 + i },
                { id: m?.id, options: { Size: 'M' } },
              ],
            })
          : a.patch(`/api/v1/inventory/${(i % 2 ? s : m)?.id}`, { type: 'variant', adjustment: -1 }),
      ),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(Array(40).fill(200));
    const level = (await a.get(`/api/v1/inventory/${p.id}`)).json().data;
    expect(level.inventory).toBe(
      level.variants.reduce((sum: number, v: { inventory: number }) => sum + v.inventory, 0),
    );
    // M was only ever adjusted (i = 2, 6, … 38): ten times −1.
    expect(level.variants[1].inventory).toBe(90);
  });

  it.each([
    ['inventory on a product with variants', () => ({ inventory: 3 })],
    ['options without variants', () => ({ options: [{ name: 'Size', values: ['XS'] }] })],
    ['an unknown variant id', () => ({ variants: [{ id: randomUUID(), options: { Size: 'S' } }] })],
    [
      'a variant id of another product',
      (_: ProductData, other: ProductData) => ({
        variants: [{ id: other.variants[0]?.id, options: { Size: 'S' } }],
      }),
    ],
    [
      'a duplicate combination',
      () => ({ variants: [{ options: { Size: 'S' } }, { options: { Size: 'S' } }] }),
    ],
    ['an unknown option value', () => ({ variants: [{ options: { Size: 'XXL' } }] })],
  ])('refuses %s with 400 and changes nothing', async (_, body) => {
    const p = await createProduct(a, sizedProduct({ S: 1, M: 2 }));
    const other = await createProduct(a, sizedProduct({ S: 1, M: 1 }));
    const res = await a.patch(`/api/v1/products/${p.id}`, body(p, other));
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect((await a.get(`/api/v1/products/${p.id}`)).json().data).toEqual(p);
    expect((await a.get(`/api/v1/products/${other.id}`)).json().data).toEqual(other);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    for (const id of [randomUUID(), 'nope']) {
      const res = await a.patch(`/api/v1/products/${id}`, { name: 'X' });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
  });
});

describe('DELETE /api/v1/products/{id}', () => {
  it('answers 204 with no body, then 404', async () => {
    const category = await createCategory(a);
    const p = await createProduct(a, sizedProduct({ S: 1, M: 1 }, { category_ids: [category.id] }));
    const res = await a.del(`/api/v1/products/${p.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await a.get(`/api/v1/products/${p.id}`)).statusCode).toBe(404);
    expect((await a.del(`/api/v1/products/${p.id}`)).statusCode).toBe(404);
    expect((await a.get(`/api/v1/inventory/${p.id}`)).statusCode).toBe(404);
    expect((await a.get(`/api/v1/categories/${category.id}`)).json().data.product_count).toBe(0);
    expect((await a.del('/api/v1/products/not-an-id')).statusCode).toBe(404);
  });
});
