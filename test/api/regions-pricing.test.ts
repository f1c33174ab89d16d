import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody, createOrder, setPricing } from '../helpers/order-factories.js';
import {
  createTaxRegion,
  createZone,
  setPricesIncludeTax,
  setProductFacts,
  type ZoneData,
} from '../helpers/region-factories.js';

/**
 * Contract §12 through the one pricing path: the quote, checkout and POST /api/v1/orders price
 * shipping from the zone of the address and tax from its tax region. Amounts are worked by hand.
 */
let app: TestApp;
let api: Client;
let shop: Client;
let storeId: string;
let slug: string;
let eu: ZoneData;
let vatId: string;
const products: Record<'mug' | 'book' | 'anvil', string> = { mug: '', book: '', anvil: '' };

interface StoreHandle {
  app: TestApp;
  api: Client;
  storeId: string;
  slug: string;
}

async function newStore(): Promise<StoreHandle> {
  const { store, key } = await createStoreWithKey(app);
  return { app, api: client(app, key), storeId: store.id, slug: store.slug };
}

const DE = { line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' };
const US = (region?: string) => ({
  line1: '1 Main St',
  city: 'Springfield',
  postalCode: '12345',
  country: 'US',
  region,
});

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const s = await newStore();
  ({ api, storeId, slug } = s);
  shop = client(app);
  // The flat rate and store-wide tax are unused once the store has zones and tax regions.
  await setPricing(app, storeId, {
    shipping_flat_rate: 999,
    free_shipping_threshold: null,
    tax_rate_bps: 1000,
  });
  products.mug = (await createProduct(api, { name: 'Mug', price: '20.00', inventory: 1000 })).id;
  products.book = (await createProduct(api, { name: 'Book', price: '10.00', inventory: 1000 })).id;
  products.anvil = (await createProduct(api, { name: 'Anvil', price: '50.00', inventory: 1000 })).id;
  await setProductFacts(api, products.mug, { weight_grams: 500 });
  await setProductFacts(api, products.book, { weight_grams: 2000, taxable: false });
  await setProductFacts(api, products.anvil, { weight_grams: 6000 });
  eu = await createZone(s, {
    name: 'EU',
    countries: ['DE', 'AT'],
    rates: [
      { name: 'Express', price: '15.00', delivery_days_min: 1, delivery_days_max: 2 },
      { name: 'Standard', price: '7.00', free_above: '100.00', delivery_days_min: 3, delivery_days_max: 5 },
      { name: 'Heavy', price: '25.00', min_weight_grams: 5000 },
      { name: 'Letter', price: '4.00', max_subtotal: '30.00', max_weight_grams: 1000 },
    ],
  });
  await createZone(s, { name: 'US', countries: ['US'], rates: [{ name: 'Ground', price: '6.00' }] });
  vatId = (await createTaxRegion(s, { country: 'DE', name: 'VAT', rate: '19', shipping_taxable: true })).id;
  await createTaxRegion(s, { country: 'US', name: 'Sales tax', rate: '4' });
  await createTaxRegion(s, { country: 'US', region: 'US-CA', name: 'CA sales tax', rate: '7.25' });
});
afterAll(() => app.close());

const rateId = (name: string) => eu.rates.find((r) => r.name === name)?.id as string;
type Item = { productId: string; variantId?: string; quantity: number };
const mug = (quantity = 1): Item => ({ productId: products.mug, quantity });
const book = (quantity = 1): Item => ({ productId: products.book, quantity });
const anvil = (quantity = 1): Item => ({ productId: products.anvil, quantity });
const quote = (items: Item[], extra: Record<string, unknown> = {}, at = slug) =>
  shop.post(`/api/storefront/${at}/checkout/quote`, checkoutBody(items, { shippingAddress: DE, ...extra }));
const checkout = (items: Item[], extra: Record<string, unknown> = {}, at = slug) =>
  shop.post(`/api/storefront/${at}/checkout`, checkoutBody(items, { shippingAddress: DE, ...extra }));
const options = (res: { json(): { data: { shippingOptions: { name: string; amount: number }[] } } }) =>
  res.json().data.shippingOptions.map((o) => `${o.name} ${o.amount}`);
const refusal = (res: {
  statusCode: number;
  json(): { error: { code: string; details?: { field: string }[] } };
}) => ({
  status: res.statusCode,
  code: res.json().error.code,
  fields: (res.json().error.details ?? []).map((d) => d.field),
});

describe('shipping options of the zone', () => {
  it('are the rates whose conditions hold, cheapest first; the cheapest is used by default', async () => {
    const res = await quote([mug()]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      subtotal: 20,
      shippingAmount: 4,
      // 19 % of 20.00 and of the 4.00 shipping (shipping_taxable).
      taxAmount: 4.56,
      total: 28.56,
      shippingOptions: [
        { id: rateId('Letter'), name: 'Letter', amount: 4, deliveryDaysMin: null, deliveryDaysMax: null },
        { id: rateId('Standard'), name: 'Standard', amount: 7, deliveryDaysMin: 3, deliveryDaysMax: 5 },
        { id: rateId('Express'), name: 'Express', amount: 15, deliveryDaysMin: 1, deliveryDaysMax: 2 },
      ],
      shippingMethod: { rateId: rateId('Letter'), name: 'Letter' },
      taxLines: [{ name: 'VAT', rate: '19', amount: 4.56 }],
      taxesIncluded: false,
    });
  });

  it('the chosen rate prices shipping (and its tax)', async () => {
    const res = await quote([mug()], { shippingRateId: rateId('Express') });
    expect(res.json().data).toMatchObject({
      shippingAmount: 15,
      taxAmount: 6.65,
      total: 41.65,
      shippingMethod: { rateId: rateId('Express'), name: 'Express' },
    });
  });

  it('weight and subtotal conditions, and free_above, decide the options', async () => {
    // 70.00 and 6.5 kg: not a letter any more, heavy now.
    expect(options(await quote([mug(), anvil()]))).toEqual(['Standard 7', 'Express 15', 'Heavy 25']);
    // 100.00: Standard is free from there.
    const free = await quote([anvil(2)]);
    expect(options(free)).toEqual(['Standard 0', 'Express 15', 'Heavy 25']);
    expect(free.json().data).toMatchObject({ shippingAmount: 0, taxAmount: 19, total: 119 });
  });

  it("a variant's own weight counts, else its product's", async () => {
    const body = {
      name: 'Crate',
      price: '20.00',
      weight_grams: 800,
      options: [{ name: 'Size', values: ['S', 'L'] }],
      variants: [
        { options: { Size: 'S' }, inventory: 10 },
        { options: { Size: 'L' }, inventory: 10, weight_grams: 6000 },
      ],
    };
    const made = await api.post('/api/v1/products', body);
    expect(made.statusCode, made.body).toBe(201);
    const [small, large] = made.json().data.variants;
    const at = (variantId: string) => quote([{ productId: made.json().data.id, variantId, quantity: 1 }]);
    // S weighs the product's 800 g: still a letter; L weighs 6 kg: heavy, no letter.
    expect(options(await at(small.id))).toEqual(['Letter 4', 'Standard 7', 'Express 15']);
    expect(options(await at(large.id))).toEqual(['Standard 7', 'Express 15', 'Heavy 25']);
  });

  it('a free_shipping discount makes every option free', async () => {
    const code = `FREE${Date.now()}`;
    const made = await api.post('/api/v1/discounts', { code, type: 'free_shipping' });
    expect(made.statusCode, made.body).toBe(201);
    const res = await quote([mug()], { couponCode: code, shippingRateId: rateId('Express') });
    expect(res.statusCode, res.body).toBe(200);
    expect(options(res)).toEqual(['Express 0', 'Standard 0', 'Letter 0']);
    expect(res.json().data).toMatchObject({ shippingAmount: 0, taxAmount: 3.8, total: 23.8 });
  });

  it('a rate that is not among the options is 400 naming shippingRateId (quote and checkout)', async () => {
    const letterTooHeavy = { shippingRateId: rateId('Letter') };
    expect(refusal(await quote([anvil()], letterTooHeavy))).toEqual({
      status: 400,
      code: 'invalid_request',
      fields: ['shippingRateId'],
    });
    expect(refusal(await checkout([anvil()], letterTooHeavy)).fields).toEqual(['shippingRateId']);
    expect(refusal(await quote([mug()], { shippingRateId: 'not-a-rate' })).fields).toEqual([
      'shippingRateId',
    ]);
  });

  it('a country no zone covers is 400 naming shippingAddress.country, saying the store does not ship there', async () => {
    const jp = { shippingAddress: { ...DE, country: 'JP' } };
    for (const res of [await quote([mug()], jp), await checkout([mug()], jp)]) {
      expect(refusal(res)).toEqual({
        status: 400,
        code: 'invalid_request',
        fields: ['shippingAddress.country'],
      });
      expect(res.json().error.message).toMatch(/does not ship to JP/);
    }
  });

  it('without an address the quote has no options and no shipping yet; checkout needs the address', async () => {
    const res = await quote([mug()], { shippingAddress: null });
    expect(res.json().data).toMatchObject({
      shippingOptions: [],
      shippingMethod: null,
      shippingAmount: 0,
      taxLines: [],
      taxAmount: 0,
      total: 20,
    });
    expect(refusal(await checkout([mug()], { shippingAddress: null })).fields).toEqual(['shippingAddress']);
  });

  it("the '*' zone takes every country no other zone lists", async () => {
    const other = await newStore();
    await createZone(other, {
      name: 'France',
      countries: ['FR'],
      rates: [{ name: 'Colissimo', price: '5.00' }],
    });
    await createZone(other, { name: 'World', countries: ['*'], rates: [{ name: 'Airmail', price: '9.00' }] });
    const p = await createProduct(other.api, { price: '20.00', inventory: 10 });
    const at = (country: string) =>
      shop.post(
        `/api/storefront/${other.slug}/checkout/quote`,
        checkoutBody([{ productId: p.id, quantity: 1 }], { shippingAddress: { ...DE, country } }),
      );
    expect(options(await at('FR'))).toEqual(['Colissimo 5']);
    expect(options(await at('JP'))).toEqual(['Airmail 9']);
  });

  it("tenancy: a rate of one store never prices another store's checkout", async () => {
    const other = await newStore();
    await createZone(other, { name: 'EU', countries: ['DE'], rates: [{ name: 'Post', price: '3.00' }] });
    const p = await createProduct(other.api, { price: '20.00', inventory: 10 });
    const items = [{ productId: p.id, quantity: 1 }];
    const res = await checkout(items, { shippingRateId: rateId('Express') }, other.slug);
    expect(refusal(res)).toEqual({ status: 400, code: 'invalid_request', fields: ['shippingRateId'] });
    expect(options(await quote(items, {}, other.slug))).toEqual(['Post 3']);
  });

  it('a store without zones or tax regions keeps its flat rate and store-wide tax', async () => {
    const plain = await newStore();
    await setPricing(app, plain.storeId, { shipping_flat_rate: 500, tax_rate_bps: 1000 });
    const p = await createProduct(plain.api, { price: '20.00', inventory: 10 });
    const res = await quote([{ productId: p.id, quantity: 1 }], {}, plain.slug);
    expect(res.json().data).toMatchObject({
      shippingAmount: 5,
      taxAmount: 2,
      total: 27,
      shippingOptions: [],
      shippingMethod: null,
      taxLines: [{ name: 'Tax', rate: '10', amount: 2 }],
      taxesIncluded: false,
    });
  });
});

describe('tax by region', () => {
  it("the address's region rate over its country's, written as 'CA' or 'us-ca' in any case", async () => {
    const at = (region?: string) => quote([mug()], { shippingAddress: US(region) });
    for (const region of ['CA', 'us-ca', 'ca']) {
      expect((await at(region)).json().data).toMatchObject({
        shippingAmount: 6,
        taxAmount: 1.45,
        total: 27.45,
        taxLines: [{ name: 'CA sales tax', rate: '7.25', amount: 1.45 }],
      });
    }
    expect((await at('NY')).json().data).toMatchObject({ taxAmount: 0.8, total: 26.8 });
    expect((await at()).json().data.taxLines).toEqual([{ name: 'Sales tax', rate: '4', amount: 0.8 }]);
  });

  it('lines of non-taxable products carry none; the discount is spread over all lines', async () => {
    const code = `SIX${Date.now()}`;
    await api.post('/api/v1/discounts', { code, type: 'fixed_amount', value: '6.00' });
    // 6.00 over 20.00 + 10.00: 4.00 on the mug, 2.00 on the (untaxed) book; 19 % of 16.00 = 3.04,
    // plus 19 % of the 7.00 Standard shipping (2.5 kg is no letter) = 1.33.
    const res = await quote([mug(), book()], { couponCode: code });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      subtotal: 30,
      discountAmount: 6,
      shippingAmount: 7,
      taxAmount: 4.37,
      total: 35.37,
    });
    // Without the discount the book still adds no tax: 3.80 + 1.33.
    expect((await quote([mug(), book()])).json().data.taxAmount).toBe(5.13);
  });

  it('with prices including tax, the tax is contained in the total, not added', async () => {
    const eu2 = await newStore();
    await setPricesIncludeTax(eu2.api, true);
    await createZone(eu2, { name: 'DE', countries: ['DE'], rates: [{ name: 'DHL', price: '7.00' }] });
    await createTaxRegion(eu2, { country: 'DE', name: 'MwSt', rate: '19', shipping_taxable: true });
    const p = await createProduct(eu2.api, { price: '11.90', inventory: 10 });
    const items = [{ productId: p.id, quantity: 1 }];
    // 11.90 × 19/119 = 1.90; 7.00 × 19/119 = 1.1176… → 1.12.
    const expected = {
      subtotal: 11.9,
      shippingAmount: 7,
      taxAmount: 3.02,
      total: 18.9,
      taxLines: [{ name: 'MwSt', rate: '19', amount: 3.02 }],
      taxesIncluded: true,
    };
    expect((await quote(items, {}, eu2.slug)).json().data).toMatchObject(expected);
    const placed = await checkout(items, {}, eu2.slug);
    expect(placed.statusCode, placed.body).toBe(201);
    expect(placed.json().data).toMatchObject(expected);
    const order = (await eu2.api.get(`/api/v1/orders/${placed.json().data.id}`)).json().data;
    expect(order).toMatchObject({ total: 18.9, tax_amount: 3.02, taxes_included: true });
  });
});

describe('orders keep the method and the tax lines', () => {
  it('checkout: the storefront and merchant answers carry them, the quote and the order agree', async () => {
    const body = { shippingRateId: rateId('Express') };
    const quoted = (await quote([mug(2), book()], body)).json().data;
    const res = await checkout([mug(2), book()], body);
    expect(res.statusCode, res.body).toBe(201);
    const placed = res.json().data;
    for (const field of ['subtotal', 'discountAmount', 'shippingAmount', 'taxAmount', 'total', 'taxLines'])
      expect(placed[field], field).toEqual(quoted[field]);
    expect(placed).toMatchObject({
      shippingMethod: { rateId: rateId('Express'), name: 'Express' },
      taxLines: [{ name: 'VAT', rate: '19', amount: 10.45 }],
      taxesIncluded: false,
    });
    const order = (await api.get(`/api/v1/orders/${placed.id}`)).json().data;
    expect(order).toMatchObject({
      shipping_amount: 15,
      tax_amount: 10.45,
      shipping_method: { rate_id: rateId('Express'), name: 'Express' },
      tax_lines: [{ name: 'VAT', rate: '19', amount: 10.45 }],
      taxes_included: false,
    });
  });

  it('POST /api/v1/orders takes shipping_rate_id and names snake_case fields when refusing', async () => {
    const order = await createOrder(api, {
      items: [{ product_id: products.mug, quantity: 1 }],
      shipping_address: { line1: '1 Hauptstr.', city: 'Wien', postal_code: '1010', country: 'AT' },
      shipping_rate_id: rateId('Standard'),
    });
    expect(order).toMatchObject({
      shipping_amount: 7,
      tax_amount: 0,
      total: 27,
      shipping_method: { rate_id: rateId('Standard'), name: 'Standard' },
      tax_lines: [],
    });
    const post = (body: Record<string, unknown>) =>
      api.post('/api/v1/orders', {
        customer: { email: 'm@example.com' },
        items: [{ product_id: products.mug, quantity: 1 }],
        ...body,
      });
    const address = { line1: '1', city: 'x', postal_code: '1', country: 'DE' };
    expect(refusal(await post({ shipping_address: address, shipping_rate_id: 'nope' })).fields).toEqual([
      'shipping_rate_id',
    ]);
    expect(refusal(await post({ shipping_address: { ...address, country: 'JP' } })).fields).toEqual([
      'shipping_address.country',
    ]);
    expect(refusal(await post({})).fields).toEqual(['shipping_address']);
  });
});

describe('edits', () => {
  it('keep the method, its amount and the discount, and retax the lines at the recorded rate', async () => {
    const res = await checkout([mug()]);
    const placed = res.json().data;
    expect(placed).toMatchObject({ shippingAmount: 4, taxAmount: 4.56, total: 28.56 });
    // The region's rate changes after the order: the edit still taxes at the order's 19 %.
    expect((await api.patch(`/api/v1/tax-regions/${vatId}`, { rate: '25' })).statusCode).toBe(200);
    // New quotes see 25 % at once (the cache follows the change): 5.00 + 1.00 on the letter.
    expect((await quote([mug()])).json().data.taxAmount).toBe(6);
    const edit = await api.post(`/api/v1/orders/${placed.id}/edit-items`, {
      add: [{ product_id: products.mug, name: 'Mug', quantity: 2, price: '20.00' }],
      update_quantity: [{ item_id: placed.lineItems[0].id, new_quantity: 2 }],
    });
    expect(edit.statusCode, edit.body).toBe(200);
    // 80.00 of mugs: 15.20 + the letter's 0.76 (its 4.00 kept, though 80.00 is no letter's subtotal).
    const order = (await api.get(`/api/v1/orders/${placed.id}`)).json().data;
    expect(order).toMatchObject({
      subtotal: 80,
      shipping_amount: 4,
      discount_amount: 0,
      tax_amount: 15.96,
      total: 99.96,
      shipping_method: { rate_id: rateId('Letter'), name: 'Letter' },
      tax_lines: [{ name: 'VAT', rate: '19', amount: 15.96 }],
    });
    expect((await api.patch(`/api/v1/tax-regions/${vatId}`, { rate: '19' })).statusCode).toBe(200);
  });

  it('a paid order edited down owes the buyer the difference; refunding it leaves the tax as edited', async () => {
    // 40.00 of mugs, Standard 7.00 (no letter above 30.00): 7.60 + 1.33 of VAT.
    const res = await checkout([mug(2)], { paymentMethod: 'test_card', cardToken: 'tok_visa' });
    expect(res.statusCode, res.body).toBe(201);
    const placed = res.json().data;
    expect(placed).toMatchObject({ total: 55.93, taxAmount: 8.93, paymentStatus: 'paid' });
    const edit = await api.post(`/api/v1/orders/${placed.id}/edit-items`, {
      update_quantity: [{ item_id: placed.lineItems[0].id, new_quantity: 1 }],
    });
    expect(edit.statusCode, edit.body).toBe(200);
    const edited = (await api.get(`/api/v1/orders/${placed.id}`)).json().data;
    expect(edited).toMatchObject({
      tax_amount: 5.13,
      total: 32.13,
      balance_due: -23.8,
      payment_status: 'refund_due',
      tax_lines: [{ name: 'VAT', rate: '19', amount: 5.13 }],
    });
    const refund = await api.post(`/api/v1/orders/${placed.id}/refunds`, { amount: '23.80' });
    expect(refund.statusCode, refund.body).toBe(201);
    const after = (await api.get(`/api/v1/orders/${placed.id}`)).json().data;
    expect(after).toMatchObject({
      amount_refunded: 23.8,
      tax_amount: 5.13,
      total: 32.13,
      tax_lines: edited.tax_lines,
      shipping_method: edited.shipping_method,
    });
  });
});
