import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { cartsOf } from '../helpers/cart-factories.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody, setPricing } from '../helpers/order-factories.js';
import { createTaxRegion, createZone, setProductFacts, type ZoneData } from '../helpers/region-factories.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/**
 * Contract §12 in carts: the options once the cart has an address, the rate chosen by PATCH (kept
 * while it stays an option), tax lines; completing prices exactly as the quote and as checkout.
 */
let app: TestApp;
let smtp: SmtpCatcher;
let api: Client;
let shop: Client;
let slug: string;
let storeId: string;
let eu: ZoneData;
let us: ZoneData;
let mug: string;
let anvil: string;
let carts: ReturnType<typeof cartsOf>;
const ORIGIN = 'http://localhost:3000';

const DE = { line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' };
const US = { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US', region: 'CA' };

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  app = await buildTestApp({ config: { ...UNLIMITED, smtpUrl: smtp.url, publicUrl: ORIGIN } });
  const { store, key } = await createStoreWithKey(app);
  ({ slug } = store);
  storeId = store.id;
  api = client(app, key);
  shop = client(app);
  carts = cartsOf(shop, slug);
  await setPricing(app, storeId, {
    shipping_flat_rate: 999,
    free_shipping_threshold: null,
    tax_rate_bps: 1000,
  });
  mug = (await createProduct(api, { name: 'Mug', price: '20.00', inventory: 1000 })).id;
  anvil = (await createProduct(api, { name: 'Anvil', price: '50.00', inventory: 1000 })).id;
  await setProductFacts(api, mug, { weight_grams: 500 });
  await setProductFacts(api, anvil, { weight_grams: 6000 });
  const s = { app, api, storeId };
  eu = await createZone(s, {
    name: 'EU',
    countries: ['DE'],
    rates: [
      { name: 'Express', price: '15.00', delivery_days_min: 1, delivery_days_max: 2 },
      { name: 'Standard', price: '7.00', delivery_days_min: 3, delivery_days_max: 5 },
      { name: 'Letter', price: '4.00', max_weight_grams: 1000 },
    ],
  });
  us = await createZone(s, { name: 'US', countries: ['US'], rates: [{ name: 'Ground', price: '6.00' }] });
  await createTaxRegion(s, { country: 'DE', name: 'VAT', rate: '19', shipping_taxable: true });
  await createTaxRegion(s, { country: 'US', region: 'US-CA', name: 'CA sales tax', rate: '7.25' });
});
afterAll(async () => {
  await app.close();
  await smtp.close();
});

const rateId = (zone: ZoneData, name: string) => zone.rates.find((r) => r.name === name)?.id as string;
const fieldsOf = (res: { json(): { error: { details?: { field: string }[] } } }) =>
  (res.json().error.details ?? []).map((d) => d.field);

async function cartWith(items: { productId: string; quantity: number }[]) {
  const res = await carts.create({ items, email: `buyer.${Date.now()}@example.com` });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

describe('a cart priced by zones and tax regions', () => {
  it('has no options before an address, then its zone’s options, the cheapest used', async () => {
    const cart = await cartWith([{ productId: mug, quantity: 1 }]);
    expect(cart).toMatchObject({
      shippingOptions: [],
      shippingMethod: null,
      shippingAmount: 0,
      taxLines: [],
    });
    const res = await carts.update(cart.id, { shippingAddress: DE });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      shippingOptions: [
        { id: rateId(eu, 'Letter'), name: 'Letter', amount: 4 },
        { id: rateId(eu, 'Standard'), name: 'Standard', amount: 7, deliveryDaysMin: 3, deliveryDaysMax: 5 },
        { id: rateId(eu, 'Express'), name: 'Express', amount: 15, deliveryDaysMin: 1, deliveryDaysMax: 2 },
      ],
      shippingMethod: { rateId: rateId(eu, 'Letter'), name: 'Letter' },
      shippingAmount: 4,
      taxAmount: 4.56,
      total: 28.56,
      taxLines: [{ name: 'VAT', rate: '19', amount: 4.56 }],
      taxesIncluded: false,
    });
  });

  it('PATCH shippingRateId chooses an option and keeps it; one that is not an option is 400', async () => {
    const cart = await cartWith([{ productId: mug, quantity: 1 }]);
    const chose = await carts.update(cart.id, { shippingAddress: DE, shippingRateId: rateId(eu, 'Express') });
    expect(chose.statusCode, chose.body).toBe(200);
    expect(chose.json().data).toMatchObject({ shippingAmount: 15, shippingMethod: { name: 'Express' } });
    expect((await carts.get(cart.id)).json().data.shippingMethod.name).toBe('Express');
    // Another store's rate, a rate of another zone, or no rate at all: never an option here.
    for (const bad of [rateId(us, 'Ground'), 'not-a-rate']) {
      const res = await carts.update(cart.id, { shippingRateId: bad });
      expect(res.statusCode).toBe(400);
      expect(fieldsOf(res)).toEqual(['shippingRateId']);
    }
    expect((await carts.get(cart.id)).json().data.shippingMethod.name).toBe('Express');
    // null goes back to the cheapest.
    const back = await carts.update(cart.id, { shippingRateId: null });
    expect(back.json().data.shippingMethod.name).toBe('Letter');
  });

  it('an address in a country no zone covers is 400 naming shippingAddress.country', async () => {
    const cart = await cartWith([{ productId: mug, quantity: 1 }]);
    const res = await carts.update(cart.id, { shippingAddress: { ...DE, country: 'JP' } });
    expect(res.statusCode).toBe(400);
    expect(fieldsOf(res)).toEqual(['shippingAddress.country']);
    expect(res.json().error.message).toMatch(/does not ship to JP/);
  });

  it('a chosen rate that stops being an option (heavier cart, other country) gives way to the cheapest', async () => {
    const cart = await cartWith([{ productId: mug, quantity: 1 }]);
    await carts.update(cart.id, { shippingAddress: DE, shippingRateId: rateId(eu, 'Letter') });
    const heavier = await carts.addItem(cart.id, { productId: anvil, quantity: 1 });
    expect(heavier.statusCode, heavier.body).toBe(200);
    expect(heavier.json().data.shippingMethod.name).toBe('Standard');
    await carts.update(cart.id, { shippingRateId: rateId(eu, 'Express') });
    const moved = await carts.update(cart.id, { shippingAddress: US });
    expect(moved.json().data).toMatchObject({
      shippingMethod: { rateId: rateId(us, 'Ground'), name: 'Ground' },
      shippingAmount: 6,
      // 7.25 % of 70.00.
      taxLines: [{ name: 'CA sales tax', rate: '7.25', amount: 5.08 }],
    });
  });

  it('completing prices as the quote and the cart do; the order keeps the method and tax lines in every API', async () => {
    const items = [
      { productId: mug, quantity: 2 },
      { productId: anvil, quantity: 1 },
    ];
    const cart = await cartWith(items);
    const express = rateId(eu, 'Express');
    const shown = (await carts.update(cart.id, { shippingAddress: DE, shippingRateId: express })).json().data;
    const quoted = (
      await shop.post(
        `/api/storefront/${slug}/checkout/quote`,
        checkoutBody(items, { shippingAddress: DE, shippingRateId: express }),
      )
    ).json().data;
    const done = await carts.complete(cart.id);
    expect(done.statusCode, done.body).toBe(201);
    const order = done.json().data;
    const amounts = ['subtotal', 'discountAmount', 'shippingAmount', 'taxAmount', 'total', 'taxLines'];
    for (const field of amounts) {
      expect(order[field], field).toEqual(shown[field]);
      expect(quoted[field], field).toEqual(shown[field]);
    }
    // 90.00 × 19 % = 17.10 and 15.00 × 19 % = 2.85.
    expect(order).toMatchObject({
      shippingAmount: 15,
      taxAmount: 19.95,
      total: 124.95,
      shippingMethod: { rateId: express, name: 'Express' },
      taxLines: [{ name: 'VAT', rate: '19', amount: 19.95 }],
      taxesIncluded: false,
    });
    const merchant = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
    expect(merchant).toMatchObject({
      shipping_method: { rate_id: express, name: 'Express' },
      tax_lines: [{ name: 'VAT', rate: '19', amount: 19.95 }],
      taxes_included: false,
    });
  });

  it('the customer API shows the method and tax lines of the buyer’s order', async () => {
    const email = `shopper.${Date.now()}@example.com`;
    const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
      app.server.inject({ method: 'POST', url, payload: payload as object, headers });
    expect((await post(`/api/storefront/${slug}/auth/request-code`, { email })).statusCode).toBe(202);
    await smtp.waitFor((m) => (m.to ?? '').includes(email));
    const code = smtp.messages
      .filter((m) => (m.to ?? '').includes(email))
      .at(-1)
      ?.text.match(/\b(\d{6})\b/)?.[1];
    const token = (await post(`/api/storefront/${slug}/auth/verify`, { email, code })).json().data.token;
    const bearer = { authorization: `Bearer ${token}` };
    const placed = await post(
      `/api/storefront/${slug}/checkout`,
      checkoutBody([{ productId: mug, quantity: 1 }], { email, shippingAddress: DE }),
      bearer,
    );
    expect(placed.statusCode, placed.body).toBe(201);
    const mine = await app.server.inject({
      method: 'GET',
      url: `/api/customer/orders/${placed.json().data.orderNumber}`,
      headers: bearer,
    });
    expect(mine.statusCode, mine.body).toBe(200);
    expect(mine.json().data).toMatchObject({
      shippingMethod: { rateId: rateId(eu, 'Letter'), name: 'Letter' },
      taxLines: [{ name: 'VAT', rate: '19', amount: 4.56 }],
      taxesIncluded: false,
    });
  });
});
