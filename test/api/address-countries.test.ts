import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { ADDRESS, cartsOf } from '../helpers/cart-factories.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody, createOrder } from '../helpers/order-factories.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/**
 * Contract §12 and issue 31 item 7: every API that takes an address checks its country against the
 * one ISO 3166 source (src/platform/iso3166.ts), in any case, and stores it upper-case. An unknown
 * code (`XX`, `ZZ`, `UK`, two non-letters) is 400 naming the address's field; before, the checkout,
 * the quote and the carts took any two characters.
 */
let app: TestApp;
let smtp: SmtpCatcher;
let api: Client;
let shop: Client;
let slug: string;
let productId: string;
const ORIGIN = 'http://localhost:3000';
const UNKNOWN = ['XX', 'ZZ', 'UK', 'zz', '!!', '12', 'U', 'USA', ''];

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  app = await buildTestApp({ config: { ...UNLIMITED, smtpUrl: smtp.url, publicUrl: ORIGIN } });
  const store = await createStoreWithKey(app);
  slug = store.store.slug;
  api = client(app, store.key);
  shop = client(app);
  productId = (await createProduct(api, { price: '10.00', inventory: 1000 })).id;
});
afterAll(async () => {
  await app.close();
  await smtp.close();
});

type Answer = Awaited<ReturnType<Client['get']>>;
function expectRefused(res: Answer, field: string, country: string) {
  expect(res.statusCode, `${JSON.stringify(country)}: ${res.body}`).toBe(400);
  const error = res.json().error;
  expect(error.code).toBe('invalid_request');
  expect(error.details, country).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
}

const address = (country: string) => ({
  line1: '1 Main St',
  city: 'Springfield',
  postalCode: '12345',
  country,
});

describe('the storefront checkout and its quote', () => {
  it('refuse an unknown country naming shippingAddress.country, and create nothing', async () => {
    const before = (await api.get('/api/v1/orders')).json().meta.pagination.total;
    for (const country of UNKNOWN) {
      const body = checkoutBody([{ productId, quantity: 1 }], { shippingAddress: address(country) });
      expectRefused(
        await shop.post(`/api/storefront/${slug}/checkout/quote`, body),
        'shippingAddress.country',
        country,
      );
      expectRefused(
        await shop.post(`/api/storefront/${slug}/checkout`, body),
        'shippingAddress.country',
        country,
      );
    }
    expect((await api.get('/api/v1/orders')).json().meta.pagination.total).toBe(before);
  });

  it('take an assigned code in any case and keep it upper-case', async () => {
    const quote = await shop.post(
      `/api/storefront/${slug}/checkout/quote`,
      checkoutBody([{ productId, quantity: 1 }], { shippingAddress: address('de') }),
    );
    expect(quote.statusCode, quote.body).toBe(200);
    const placed = await shop.post(
      `/api/storefront/${slug}/checkout`,
      checkoutBody([{ productId, quantity: 1 }], { shippingAddress: address('gb') }),
    );
    expect(placed.statusCode, placed.body).toBe(201);
    expect(placed.json().data.shippingAddress.country).toBe('GB');
    const order = (await api.get(`/api/v1/orders/${placed.json().data.id}`)).json().data;
    expect(order.shipping_address.country).toBe('GB');
  });
});

describe('the carts API', () => {
  it('refuses an unknown country naming shippingAddress.country, and keeps the address it had', async () => {
    const carts = cartsOf(shop, slug);
    const cart = (await carts.create({ items: [{ productId, quantity: 1 }] })).json().data;
    const set = await carts.update(cart.id, { shippingAddress: ADDRESS });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data.shippingAddress.country).toBe('US');
    for (const country of UNKNOWN) {
      expectRefused(
        await carts.update(cart.id, { shippingAddress: { ...ADDRESS, country } }),
        'shippingAddress.country',
        country,
      );
    }
    expect((await carts.get(cart.id)).json().data.shippingAddress.country).toBe('US');
    const changed = await carts.update(cart.id, { shippingAddress: { ...ADDRESS, country: 'fr' } });
    expect(changed.json().data.shippingAddress.country).toBe('FR');
  });
});

describe('the merchant orders API', () => {
  const shippingAddress = (country: string) => ({
    line1: '1 Main St',
    city: 'Springfield',
    postal_code: '12345',
    country,
  });

  it('refuses an unknown country on create and update naming shipping_address.country', async () => {
    const order = await createOrder(api, {
      items: [{ product_id: productId, quantity: 1 }],
      shipping_address: shippingAddress('at'),
    });
    expect(order.shipping_address.country).toBe('AT');
    for (const country of UNKNOWN) {
      const created = await api.post('/api/v1/orders', {
        customer: { email: 'grace@example.com' },
        items: [{ product_id: productId, quantity: 1 }],
        shipping_address: shippingAddress(country),
      });
      expectRefused(created, 'shipping_address.country', country);
      const updated = await api.patch(`/api/v1/orders/${order.id}`, {
        shipping_address: shippingAddress(country),
      });
      expectRefused(updated, 'shipping_address.country', country);
    }
    const updated = await api.patch(`/api/v1/orders/${order.id}`, {
      shipping_address: shippingAddress('ch'),
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().data.shipping_address.country).toBe('CH');
  });
});

describe("the customer's saved addresses", () => {
  it('refuse an unknown country naming country, and store a known one upper-case', async () => {
    const email = `shopper.${Date.now()}@example.com`;
    const before = smtp.messages.length;
    const asked = await app.server.inject({
      method: 'POST',
      url: `/api/storefront/${slug}/auth/request-code`,
      payload: { email },
    });
    expect(asked.statusCode, asked.body).toBe(202);
    await smtp.waitFor((m) => smtp.messages.indexOf(m) >= before && (m.to ?? '').includes(email));
    const code = smtp.messages
      .filter((m) => (m.to ?? '').includes(email))
      .at(-1)
      ?.text.match(/\b(\d{6})\b/)?.[1];
    const verified = await app.server.inject({
      method: 'POST',
      url: `/api/storefront/${slug}/auth/verify`,
      payload: { email, code },
    });
    expect(verified.statusCode, verified.body).toBe(200);
    const headers = { authorization: `Bearer ${verified.json().data.token}` };
    const save = (country: string) =>
      app.server.inject({
        method: 'POST',
        url: '/api/customer/addresses',
        headers,
        payload: address(country),
      });
    for (const country of UNKNOWN) expectRefused(await save(country), 'country', country);
    const saved = await save('nl');
    expect(saved.statusCode, saved.body).toBe(201);
    expect(saved.json().data.country).toBe('NL');
    const list = await app.server.inject({ method: 'GET', url: '/api/customer/addresses', headers });
    expect(list.json().data).toHaveLength(1);
  });
});
