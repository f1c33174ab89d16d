import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
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
let api: Client;
let slug: string;
let otherSlug: string;
const products: Record<string, ProductData> = {};

const sf = (path: string, headers?: Record<string, string>) =>
  client(app).get(`/api/storefront/${path}`, headers);
const names = (res: { json(): { data: { name: string }[] } }) => res.json().data.map((p) => p.name);

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  slug = `shop-${randomBytes(4).toString('hex')}`;
  const store = await app.services.stores.createStore({ slug, name: 'Corner Shop', currency: 'EUR' });
  await app.database.db
    .updateTable('stores')
    .set({
      logo: 'https://cdn.example.com/logo.png',
      colors: JSON.stringify({ primary: '#ff0000', text: '#000000' }),
    })
    .where('id', '=', store.id)
    .execute();
  api = client(app, (await app.services.stores.createApiKey(store.id, { scopes: 'all' })).key);
  const other = await createStoreWithKey(app);
  otherSlug = other.store.slug;
  await createProduct(client(app, other.key), { name: 'Foreign Widget', price: '1.00' });

  const hats = await createCategory(api, { name: 'Hats', slug: 'hats' });
  const scarves = await createCategory(api, { name: 'Scarves', slug: 'scarves', position: 1 });
  await createCategory(api, { name: 'Empty', slug: 'empty', parent_id: hats.id, position: 2 });
  const make = async (name: string, body: Record<string, unknown>) => {
    products[name] = await createProduct(api, { name, ...body });
  };
  await make('Wool Hat', { price: '25.00', inventory: 4, sku: 'HAT-W', category_ids: [hats.id] });
  await make('Cap', {
    price: '9.50',
    compare_price: '12.00',
    inventory: 0,
    category_ids: [hats.id],
    images: [
      { url: 'https://cdn.example.com/cap-side.jpg' },
      { url: 'https://cdn.example.com/cap-front.jpg', is_primary: true, alt: 'front' },
      { url: 'https://videos.example.com/cap', media_type: 'video' },
    ],
  });
  await make('beanie', {
    price: '15.00',
    inventory: 0,
    track_inventory: false,
    category_ids: [hats.id, scarves.id],
  });
  await make('Draft Hat', { price: '5.00', status: 'draft', category_ids: [hats.id] });
  await make('Old Scarf', { price: '7.00', status: 'archived', category_ids: [scarves.id] });
  await make('Silk Scarf', {
    price: '40.00',
    category_ids: [scarves.id],
    options: [{ name: 'Colour', values: ['Red', 'Blue'] }],
    variants: [
      { options: { Colour: 'Red' }, inventory: 2, sku: 'SILK-R' },
      { options: { Colour: 'Blue' }, inventory: 0, price: '42.00' },
    ],
  });
});
afterAll(() => app.close());

describe('GET /api/storefront/{slug}/config', () => {
  it('answers name, slug, logo, colours (with defaults) and currency', async () => {
    const res = await sf(`${slug}/config`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        name: 'Corner Shop',
        slug,
        logo: 'https://cdn.example.com/logo.png',
        colors: {
          primary: '#ff0000',
          secondary: expect.stringMatching(/^#[0-9a-f]{6}$/i),
          accent: expect.stringMatching(/^#[0-9a-f]{6}$/i),
          background: expect.stringMatching(/^#[0-9a-f]{6}$/i),
          text: '#000000',
        },
        currency: 'EUR',
        // Stripe is offered once the store connects it (test/api/stripe-settings.test.ts).
        payments: { methods: ['manual', 'test_card'] },
      },
    });
    const plain = (await sf(`${otherSlug}/config`)).json().data;
    expect(plain).toMatchObject({ name: 'Test Store', slug: otherSlug, logo: null, currency: 'USD' });
    expect(Object.keys(plain.colors).sort()).toEqual([
      'accent',
      'background',
      'primary',
      'secondary',
      'text',
    ]);
  });
});

describe('GET /api/storefront/{slug}/products', () => {
  it('lists active products only, newest first, as summaries', async () => {
    const res = await sf(`${slug}/products`);
    expect(res.statusCode).toBe(200);
    expect(names(res)).toEqual(['Silk Scarf', 'beanie', 'Cap', 'Wool Hat']);
    expect(res.json().meta.pagination).toEqual({
      page: 1,
      limit: 20,
      total: 4,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
    const byName = Object.fromEntries(res.json().data.map((p: { name: string }) => [p.name, p]));
    expect(byName.Cap).toEqual({
      id: products.Cap?.id,
      name: 'Cap',
      slug: 'cap',
      price: '9.50',
      comparePrice: '12.00',
      priceVaries: false,
      image: 'https://cdn.example.com/cap-front.jpg',
      inStock: false,
    });
    expect(byName['Wool Hat']).toMatchObject({ image: null, inStock: true, comparePrice: null });
    expect(byName.beanie.inStock).toBe(true);
    expect(byName['Silk Scarf'].inStock).toBe(true);
    // Sold by variant: the cheapest in stock (Red, at the product's price), Blue costs more.
    expect(byName['Silk Scarf']).toMatchObject({ price: '40.00', comparePrice: null, priceVaries: true });
  });

  it.each([
    ['sort=newest', ['Silk Scarf', 'beanie', 'Cap', 'Wool Hat']],
    ['sort=price_asc', ['Cap', 'beanie', 'Wool Hat', 'Silk Scarf']],
    ['sort=price_desc', ['Silk Scarf', 'Wool Hat', 'beanie', 'Cap']],
    ['sort=name', ['beanie', 'Cap', 'Silk Scarf', 'Wool Hat']],
    ['category=hats', ['beanie', 'Cap', 'Wool Hat']],
    ['category=scarves&sort=name', ['beanie', 'Silk Scarf']],
    ['category=empty', []],
    ['category=nope', []],
    ['q=HAT', ['Wool Hat']],
    ['q=hat-w', ['Wool Hat']],
    ['q=draft', []],
    ['sort=price_asc&limit=2&page=2', ['Wool Hat', 'Silk Scarf']],
  ])('%s', async (query, expected) => {
    const res = await sf(`${slug}/products?${query}`);
    expect(res.statusCode).toBe(200);
    expect(names(res)).toEqual(expected);
  });

  it('paginates and validates its query', async () => {
    const res = await sf(`${slug}/products?limit=3&page=2`);
    expect(res.json().meta.pagination).toEqual({
      page: 2,
      limit: 3,
      total: 4,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
    for (const query of ['sort=cheapest', 'limit=0', 'page=0', 'limit=101']) {
      const bad = await sf(`${slug}/products?${query}`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe('invalid_request');
    }
  });

  it('never shows another store’s products', async () => {
    expect(names(await sf(`${otherSlug}/products`))).toEqual(['Foreign Widget']);
  });
});

describe('storefront list totals', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('follow a change made through the API at once, and one made behind Emporium’s back within 5 s', async () => {
    // Answers and totals are kept for 5 s (docs/decisions.md): the clock stands still so the test says when.
    let now = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const shop = await createStoreWithKey(app);
    const merchant = client(app, shop.key);
    const hats = await createCategory(merchant, { name: 'Hats', slug: 'hats' });
    const redHat = await createProduct(merchant, { name: 'Red Hat', category_ids: [hats.id] });
    const blueHat = await createProduct(merchant, { name: 'Blue Hat', category_ids: [hats.id] });
    await createProduct(merchant, { name: 'Green Scarf' });
    // limit=1 gives a full page, whose total can only come from the count (a short page ends the
    // list, so it carries its own exact total).
    const list = async (query: string) => {
      const res = await sf(`${shop.store.slug}/products?limit=1${query}`);
      expect(res.statusCode).toBe(200);
      return { first: names(res)[0], total: res.json().meta.pagination.total };
    };

    expect(await list('')).toEqual({ first: 'Green Scarf', total: 3 });
    expect(await list('&category=hats')).toEqual({ first: 'Blue Hat', total: 2 });
    expect(await list('&q=hat')).toEqual({ first: 'Blue Hat', total: 2 });
    expect(await list('&q=scarf')).toEqual({ first: 'Green Scarf', total: 1 });

    // Through the API: the store's catalogue version moves, so no kept answer or total is used.
    await createProduct(merchant, { name: 'Yellow Hat', category_ids: [hats.id] });
    expect(await list('')).toEqual({ first: 'Yellow Hat', total: 4 });
    expect(await list('&category=hats')).toEqual({ first: 'Yellow Hat', total: 3 });
    expect(await list('&q=hat')).toEqual({ first: 'Yellow Hat', total: 3 });
    expect(await list('&q=scarf')).toEqual({ first: 'Green Scarf', total: 1 });
    const archived = await merchant.patch(`/api/v1/products/${redHat.id}`, { status: 'archived' });
    expect(archived.statusCode).toBe(200);
    expect(await list('')).toEqual({ first: 'Yellow Hat', total: 3 });
    // An empty page past the end shows there are at most `offset`.
    expect(await list('&page=4')).toEqual({ first: undefined, total: 3 });

    // Behind Emporium's back (no service saw it): the kept answer and total are served until 5 s
    // after they were made, then read again.
    await app.database.db
      .updateTable('products')
      .set({ status: 'archived' })
      .where('id', '=', blueHat.id)
      .execute();
    expect(await list('')).toEqual({ first: 'Yellow Hat', total: 3 });
    now += 5_000;
    expect(await list('')).toEqual({ first: 'Yellow Hat', total: 2 });
    expect(await list('&category=hats')).toEqual({ first: 'Yellow Hat', total: 1 });
  });
});

describe('GET /api/storefront/{slug}/products/{productSlug}', () => {
  it('answers { product, variants, images } for an active product', async () => {
    const res = await sf(`${slug}/products/silk-scarf`);
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(Object.keys(data).sort()).toEqual(['images', 'product', 'variants']);
    expect(data.product).toMatchObject({
      id: products['Silk Scarf']?.id,
      name: 'Silk Scarf',
      slug: 'silk-scarf',
      price: '40.00',
      comparePrice: null,
      inStock: true,
      options: [{ name: 'Colour', values: ['Red', 'Blue'] }],
    });
    expect(data.variants).toEqual([
      {
        id: expect.any(String),
        title: 'Red',
        sku: 'SILK-R',
        price: '40.00',
        comparePrice: null,
        inStock: true,
        options: { Colour: 'Red' },
      },
      {
        id: expect.any(String),
        title: 'Blue',
        sku: null,
        price: '42.00',
        comparePrice: null,
        inStock: false,
        options: { Colour: 'Blue' },
      },
    ]);
    const cap = (await sf(`${slug}/products/cap`)).json().data;
    expect(cap.images).toEqual([
      {
        id: expect.any(String),
        url: 'https://cdn.example.com/cap-side.jpg',
        alt: null,
        isPrimary: false,
        position: 0,
      },
      {
        id: expect.any(String),
        url: 'https://cdn.example.com/cap-front.jpg',
        alt: 'front',
        isPrimary: true,
        position: 1,
      },
    ]);
    expect(cap.product.videos).toEqual([{ id: expect.any(String), url: 'https://videos.example.com/cap' }]);
  });

  // The page is read in one statement; the merchant's product (read query by query) is the reference.
  it.each(['Silk Scarf', 'Cap', 'beanie', 'Wool Hat'])(
    'shows %s with the variants, media and categories the merchant sees, in their order',
    async (name) => {
      const merchant = (await api.get(`/api/v1/products/${products[name]?.id}`)).json().data;
      const page = (await sf(`${slug}/products/${merchant.slug}`)).json().data;
      expect(page.product.categoryIds).toEqual([...merchant.category_ids].sort());
      const ids = (list: { id: string }[]) => list.map((item) => item.id);
      expect(ids(page.variants)).toEqual(ids(merchant.variants));
      expect(ids(page.images)).toEqual(ids(merchant.images));
      expect(ids(page.product.videos)).toEqual(ids(merchant.media));
    },
  );

  it.each(['draft-hat', 'old-scarf', 'no-such-product', 'foreign-widget'])(
    'answers 404 for %s',
    async (product) => {
      const res = await sf(`${slug}/products/${product}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    },
  );
});

describe('GET /api/storefront/{slug}/categories', () => {
  it('lists categories with their number of active products', async () => {
    const res = await sf(`${slug}/categories`);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.map((c: { slug: string; productCount: number }) => [c.slug, c.productCount])).toEqual([
      ['hats', 3],
      ['scarves', 2],
      ['empty', 0],
    ]);
    expect(Object.keys(data[0]).sort()).toEqual(['id', 'name', 'parentId', 'productCount', 'slug']);
    expect(data[2].parentId).toBe(data[0].id);
    expect(res.json().meta.pagination.total).toBe(3);
  });
});

describe('unknown and disabled stores', () => {
  it.each(['config', 'products', 'products/cap', 'categories', 'app-config'])(
    'answers 404 with the error envelope for %s',
    async (path) => {
      const res = await sf(`no-such-store/${path}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
      expect(res.headers.etag).toBeUndefined();
    },
  );

  it('answers 404 for a disabled store', async () => {
    const { store } = await createStoreWithKey(app);
    await app.database.db
      .updateTable('stores')
      .set({ status: 'disabled' })
      .where('id', '=', store.id)
      .execute();
    expect((await sf(`${store.slug}/config`)).statusCode).toBe(404);
    expect((await sf(`${store.slug}/products`)).statusCode).toBe(404);
  });
});

describe('caching', () => {
  it.each(['config', 'products?sort=name', 'products/cap', 'categories', 'app-config'])(
    '%s carries an ETag and Cache-Control, and answers 304 to If-None-Match',
    async (path) => {
      const first = await sf(`${slug}/${path}`);
      expect(first.statusCode).toBe(200);
      expect(first.headers['cache-control']).toBe('public, max-age=30');
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[^"]+"$/);
      expect((await sf(`${slug}/${path}`)).headers.etag).toBe(etag);

      for (const tag of [etag, `W/${etag}`, `"other", ${etag}`]) {
        const again = await sf(`${slug}/${path}`, { 'if-none-match': tag });
        expect(again.statusCode).toBe(304);
        expect(again.body).toBe('');
        expect(again.headers.etag).toBe(etag);
      }
      const stale = await sf(`${slug}/${path}`, { 'if-none-match': '"stale"' });
      expect(stale.statusCode).toBe(200);
      expect(stale.json()).toEqual(first.json());
    },
  );

  it('changes the ETag when the content changes', async () => {
    const fresh = await createStoreWithKey(app);
    const path = `${fresh.store.slug}/products`;
    const empty = await sf(path);
    expect(empty.json().data).toEqual([]);
    await createProduct(client(app, fresh.key), { name: 'Fresh Arrival' });
    const res = await sf(path, { 'if-none-match': String(empty.headers.etag) });
    expect(res.statusCode).toBe(200);
    expect(names(res)).toEqual(['Fresh Arrival']);
    expect(res.headers.etag).not.toBe(empty.headers.etag);
  });
});
