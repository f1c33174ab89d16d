import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_AMOUNT } from '../../src/platform/money.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody, createOrder, setPricing } from '../helpers/order-factories.js';

/**
 * Money in range: currencies are ISO 4217 codes; catalogue prices and every order amount are at
 * most MAX_AMOUNT minor units, so the JSON numbers the API answers are exact; the quote refuses
 * exactly what checkout, POST /orders and order edits refuse.
 */

let app: TestApp;
let api: Client;
let shop: Client;
let slug: string;
let adminCookie: string;
const ORIGIN = 'http://localhost:3000';
/** 99,999,999,999.99: the largest price a two-decimal currency accepts (MAX_AMOUNT − 1 minor units). */
const TOP_PRICE = '99999999999.99';

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN } });
  const store = await createStoreWithKey(app);
  slug = store.store.slug;
  api = client(app, store.key);
  shop = client(app);
  // No shipping, no tax: the amounts are the prices.
  await setPricing(app, store.store.id, {
    shipping_flat_rate: 0,
    free_shipping_threshold: null,
    tax_rate_bps: 0,
  });
  const email = `owner.${Date.now()}@example.com`;
  await app.services.stores.createAdminUser({ email, password: 'correct horse battery', storeSlug: slug });
  const login = await app.server.inject({
    method: 'POST',
    url: '/api/admin/auth/login',
    payload: { email, password: 'correct horse battery' },
  });
  adminCookie = String(login.headers['set-cookie']).split(';')[0] as string;
});
afterAll(() => app.close());

const patchStore = (payload: Record<string, unknown>) =>
  app.server.inject({
    method: 'PATCH',
    url: '/api/admin/store',
    headers: { cookie: adminCookie, origin: ORIGIN },
    payload,
  });

function expectRefused(res: { statusCode: number; body: string; json(): unknown }, field: string) {
  expect(res.statusCode, res.body).toBe(400);
  const { error } = res.json() as { error: { code: string; details?: { field: string }[] } };
  expect(error.code).toBe('invalid_request');
  expect(error.details?.[0]?.field).toBe(field);
}

describe('currency: an ISO 4217 code wherever it is set', () => {
  it('admin store settings refuse QQQ and accept EUR (same minor units as USD)', async () => {
    for (const currency of ['QQQ', 'XYZ', 'usdollar'])
      expectRefused(await patchStore({ currency }), 'currency');
    const ok = await patchStore({ currency: 'eur' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.currency).toBe('EUR');
    expect((await patchStore({ currency: 'USD' })).statusCode).toBe(200);
  });

  it('creating a store refuses a code that is not ISO 4217 (the CLI and seed create through it)', async () => {
    await expect(
      app.services.stores.createStore({ slug: 'qqq-store', name: 'Q', currency: 'QQQ' }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'invalid_request', details: [{ field: 'currency' }] });
    const jpy = await app.services.stores.createStore({
      slug: `jpy-${Date.now()}`,
      name: 'Yen',
      currency: 'jpy',
    });
    expect(jpy.currency).toBe('JPY');
  });
});

describe('catalogue prices are at most MAX_AMOUNT minor units', () => {
  it('price, compare_price and variant prices above the maximum are 400 naming the field', async () => {
    const over = '100000000000.00'; // MAX_AMOUNT minor units + 1 unit of 0.01 would already be over
    expect(MAX_AMOUNT).toBe(10 ** 13);
    expectRefused(
      await api.post('/api/v1/products', { name: 'Too dear', price: '100000000000.01' }),
      'price',
    );
    expectRefused(await api.post('/api/v1/products', { name: 'Too dear', price: 1e300 }), 'price');
    expectRefused(
      await api.post('/api/v1/products', {
        name: 'Too dear',
        price: '1.00',
        compare_price: '100000000000.01',
      }),
      'compare_price',
    );
    expectRefused(
      await api.post('/api/v1/products', {
        name: 'Too dear',
        price: '1.00',
        options: [{ name: 'Size', values: ['S'] }],
        variants: [{ options: { Size: 'S' }, price: '100000000000.01' }],
      }),
      'variants.0.price',
    );
    const product = await createProduct(api, { price: TOP_PRICE });
    expect(product.price).toBe(TOP_PRICE);
    expectRefused(await api.patch(`/api/v1/products/${product.id}`, { price: '100000000000.01' }), 'price');
    // Exactly the maximum is accepted.
    const atMax = await api.post('/api/v1/products', { name: 'At the maximum', price: over });
    expect(atMax.statusCode, atMax.body).toBe(201);
  });

  it('store shipping and discount amounts are bounded the same way', async () => {
    expectRefused(await patchStore({ shipping_flat_rate: '100000000000.01' }), 'shipping_flat_rate');
    expectRefused(
      await api.post('/api/v1/discounts', { code: 'HUGE', type: 'fixed_amount', value: '100000000000.01' }),
      'value',
    );
  });
});

describe('order amounts: one range check for quote, checkout, POST /orders and edits', () => {
  it('a cart over the maximum is refused alike by the quote, checkout and POST /orders', async () => {
    const product = await createProduct(api, { price: TOP_PRICE, inventory: 100_000 });
    const shopper = checkoutBody([{ productId: product.id, quantity: 2 }]);
    const quote = await shop.post(`/api/storefront/${slug}/checkout/quote`, shopper);
    const placed = await shop.post(`/api/storefront/${slug}/checkout`, shopper);
    const manual = await api.post('/api/v1/orders', {
      customer: { email: 'big@example.com' },
      items: [{ product_id: product.id, quantity: 2 }],
    });
    for (const res of [quote, placed]) expectRefused(res, 'items');
    expectRefused(manual, 'items');
    expect(quote.json().error.message).toBe(placed.json().error.message);
    // A merchant-set line price cannot get round it, and neither can many lines nor huge quantities.
    const cheap = await createProduct(api, { price: '1.00', inventory: 1_000_000 });
    expectRefused(
      await api.post('/api/v1/orders', {
        customer: { email: 'big@example.com' },
        items: [{ product_id: cheap.id, quantity: 100_000, price: '1000000000.00' }],
      }),
      'items',
    );
    const many = checkoutBody(Array.from({ length: 3 }, () => ({ productId: product.id, quantity: 10_000 })));
    expectRefused(await shop.post(`/api/storefront/${slug}/checkout/quote`, many), 'items');
    expectRefused(await shop.post(`/api/storefront/${slug}/checkout`, many), 'items');
    // Nothing was created.
    expect((await api.get(`/api/v1/orders?q=big@example.com`)).json().data).toEqual([]);
  });

  it('an order of exactly the maximum answers exact JSON numbers, to the cent', async () => {
    const product = await createProduct(api, { price: '50000000000.00', inventory: 10 });
    const other = await createProduct(api, { price: '49999999999.99', inventory: 10 });
    const items = [
      { productId: product.id, quantity: 1 },
      { productId: other.id, quantity: 1 },
    ];
    const quote = await shop.post(`/api/storefront/${slug}/checkout/quote`, checkoutBody(items));
    expect(quote.statusCode, quote.body).toBe(200);
    expect(quote.body).toContain('"total":99999999999.99');
    const placed = await shop.post(`/api/storefront/${slug}/checkout`, checkoutBody(items));
    expect(placed.statusCode, placed.body).toBe(201);
    const order = await api.get(`/api/v1/orders/${placed.json().data.id}`);
    expect(order.body).toContain('"subtotal":99999999999.99');
    expect(order.body).toContain('"total":99999999999.99');
    expect(order.body).toContain('"balance_due":99999999999.99');
  });

  it('an edit that would take the order over the maximum is 400 and changes nothing', async () => {
    const product = await createProduct(api, { price: TOP_PRICE, inventory: 10 });
    const order = await createOrder(api, { items: [{ product_id: product.id, quantity: 1 }] });
    const lineId = order.line_items[0].id as string;
    expectRefused(
      await api.post(`/api/v1/orders/${order.id}/edit-items`, {
        add: [{ product_id: product.id, name: 'Again', quantity: 1, price: TOP_PRICE }],
      }),
      'add',
    );
    expectRefused(
      await api.post(`/api/v1/orders/${order.id}/edit-items`, {
        update_quantity: [{ item_id: lineId, new_quantity: 2 }],
      }),
      'update_quantity',
    );
    const after = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
    expect(after.total).toBe(99999999999.99);
    expect(after.line_items).toHaveLength(1);
    expect((await api.get(`/api/v1/inventory/${product.id}`)).json().data.inventory).toBe(9);
  });
});
