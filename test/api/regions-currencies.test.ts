import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { checkoutBody } from '../helpers/order-factories.js';
import { createTaxRegion, createZone, setPricesIncludeTax } from '../helpers/region-factories.js';

/**
 * §12's shipping and tax in a zero-decimal (JPY) and a three-decimal (BHD) currency, through the
 * quote, checkout and the merchant API. Amounts worked by hand, rounded half up to the minor unit.
 */
let app: TestApp;
let shop: Client;

interface Store {
  api: Client;
  slug: string;
  productId: string;
}

async function storeIn(currency: string, country: string, price: string, rate: string): Promise<Store> {
  const store = await app.services.stores.createStore({
    slug: `${currency.toLowerCase()}-${Date.now()}`,
    name: currency,
    currency,
  });
  const api = client(app, (await app.services.stores.createApiKey(store.id, { scopes: 'all' })).key);
  const productId = (await createProduct(api, { name: 'Lamp', price, inventory: 1000 })).id;
  await createZone({ api }, { name: 'Home', countries: [country], rates: [{ name: 'Post', price: rate }] });
  return { api, slug: store.slug, productId };
}

const address = (country: string) => ({ line1: '1 Main St', city: 'Capital', postalCode: '100', country });
const body = (s: Store, country: string, quantity: number) =>
  checkoutBody([{ productId: s.productId, quantity }], { shippingAddress: address(country) });

let jpy: Store;
let bhd: Store;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  shop = client(app);
  jpy = await storeIn('JPY', 'JP', '1234', '500');
  await createTaxRegion(
    { api: jpy.api },
    { country: 'JP', name: 'Consumption tax', rate: '7.25', shipping_taxable: true },
  );
  bhd = await storeIn('BHD', 'BH', '12.345', '1.500');
  await createTaxRegion({ api: bhd.api }, { country: 'BH', name: 'VAT', rate: '7.25' });
});
afterAll(() => app.close());

describe('zero decimals (JPY)', () => {
  it('taxes each line and the shipping at 7.25 %, rounded to the yen, and checkout charges the quote', async () => {
    // 3 × ¥1,234 = ¥3,702: tax 268.395 → 268; shipping ¥500: tax 36.25 → 36.
    const expected = {
      subtotal: 3702,
      shippingAmount: 500,
      taxAmount: 304,
      total: 4506,
      taxLines: [{ name: 'Consumption tax', rate: '7.25', amount: 304 }],
      taxesIncluded: false,
    };
    const quote = await shop.post(`/api/storefront/${jpy.slug}/checkout/quote`, body(jpy, 'JP', 3));
    expect(quote.statusCode, quote.body).toBe(200);
    expect(quote.json().data).toMatchObject(expected);
    const placed = await shop.post(`/api/storefront/${jpy.slug}/checkout`, body(jpy, 'JP', 3));
    expect(placed.statusCode, placed.body).toBe(201);
    const id = placed.json().data.id as string;
    const order = (await jpy.api.get(`/api/v1/orders/${id}`)).json().data;
    expect(order).toMatchObject({
      tax_amount: 304,
      total: 4506,
      shipping_amount: 500,
      taxes_included: false,
    });
    expect(order.tax_lines).toEqual([{ name: 'Consumption tax', rate: '7.25', amount: 304 }]);
  });

  it('with prices that include the tax, the tax contained is rounded per line and not added', async () => {
    await setPricesIncludeTax(jpy.api, true);
    try {
      // ¥3,702 × 7.25 / 107.25 = 250.25 → 250; ¥500 × 7.25 / 107.25 = 33.80 → 34.
      const quote = await shop.post(`/api/storefront/${jpy.slug}/checkout/quote`, body(jpy, 'JP', 3));
      expect(quote.json().data).toMatchObject({
        subtotal: 3702,
        shippingAmount: 500,
        taxAmount: 284,
        total: 4202,
        taxesIncluded: true,
      });
    } finally {
      await setPricesIncludeTax(jpy.api, false);
    }
  });
});

describe('three decimals (BHD)', () => {
  it('taxes the line at 7.25 % to the fils, shipping untaxed, and the merchant API answers the same amounts', async () => {
    // 2 × 12.345 = 24.690 BHD: tax 1.790025 → 1.790; shipping 1.500 is not taxable here.
    const quote = await shop.post(`/api/storefront/${bhd.slug}/checkout/quote`, body(bhd, 'BH', 2));
    expect(quote.statusCode, quote.body).toBe(200);
    expect(quote.json().data).toMatchObject({
      subtotal: 24.69,
      shippingAmount: 1.5,
      taxAmount: 1.79,
      total: 27.98,
    });
    const placed = await shop.post(`/api/storefront/${bhd.slug}/checkout`, body(bhd, 'BH', 2));
    expect(placed.statusCode, placed.body).toBe(201);
    const order = (await bhd.api.get(`/api/v1/orders/${placed.json().data.id}`)).json().data;
    expect(order).toMatchObject({
      subtotal: 24.69,
      shipping_amount: 1.5,
      tax_amount: 1.79,
      total: 27.98,
    });
    expect(order.tax_lines).toEqual([{ name: 'VAT', rate: '7.25', amount: 1.79 }]);
  });

  it('refuses a shipping price with more decimals than the currency has', async () => {
    const res = await bhd.api.post('/api/v1/shipping-zones', {
      name: 'Gulf',
      countries: ['SA'],
      rates: [{ name: 'Post', price: '1.2345' }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.map((d: { field: string }) => d.field)).toEqual(['rates.0.price']);
  });
});
