import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  type ProductData,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { shopAccountClient } from '../helpers/shop-account.js';
import { SHOP_ORIGIN, type ShopBrowser, shopBrowser, textOf } from '../helpers/shop-client.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/**
 * The shop's checkout across regions (contract §12) over HTTP, as a browser without JavaScript uses
 * it: the options of the country entered (form post → page with them, cheapest checked), the one
 * chosen on the order, a country the store does not ship to refused before payment, and the tax
 * lines (added, or "incl." when prices contain them) on the cart, the checkout, the confirmation and
 * the account's order page. Zones and tax regions are made through the merchant API.
 */
let app: TestApp;
let smtp: SmtpCatcher;
let excl: Shop;
let incl: Shop;

interface Shop {
  slug: string;
  api: Client;
  lamp: ProductData;
  rates: Record<string, string>;
  /** Zone name → id. */
  zones: Record<string, string>;
}

const ADDRESS = {
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  phone: '',
  line1: 'Unter den Linden 1',
  line2: '',
  city: 'Berlin',
  region: '',
  postalCode: '10117',
  country: 'DE',
};

/**
 * A store in euros shipping to Germany and Austria (Express 14.90 in 1–2 days, listed first, and
 * Standard 4.90 in 2–4) and to the United States (Ground 7.00), not to Brazil; VAT 19 % in Germany,
 * 7.25 % sales tax in California; a lamp at `price`.
 */
async function regionalShop(price: string, pricesIncludeTax: boolean): Promise<Shop> {
  const made = await createStoreWithKey(app);
  const api = client(app, made.key);
  const settings = await api.patch('/api/v1/store', {
    currency: 'EUR',
    prices_include_tax: pricesIncludeTax,
  });
  expect(settings.statusCode, settings.body).toBe(200);
  const europe = await api.post('/api/v1/shipping-zones', {
    name: 'Europe',
    countries: ['DE', 'AT'],
    rates: [
      { name: 'Express', price: '14.90', delivery_days_min: 1, delivery_days_max: 2 },
      { name: 'Standard', price: '4.90', delivery_days_min: 2, delivery_days_max: 4 },
    ],
  });
  expect(europe.statusCode, europe.body).toBe(201);
  const us = await api.post('/api/v1/shipping-zones', {
    name: 'United States',
    countries: ['US'],
    rates: [{ name: 'Ground', price: '7.00', delivery_days_min: 3, delivery_days_max: 5 }],
  });
  expect(us.statusCode, us.body).toBe(201);
  for (const region of [
    { country: 'DE', name: 'VAT', rate: '19' },
    { country: 'US', region: 'US-CA', name: 'Sales tax', rate: '7.25' },
  ]) {
    const res = await api.post('/api/v1/tax-regions', region);
    expect(res.statusCode, res.body).toBe(201);
  }
  const lamp = await createProduct(api, { name: 'Desk Lamp', price, inventory: 50 });
  const rates = Object.fromEntries(
    [...europe.json().data.rates, ...us.json().data.rates].map((r: { id: string; name: string }) => [
      r.name,
      r.id,
    ]),
  );
  const zones = { Europe: europe.json().data.id, 'United States': us.json().data.id };
  return { slug: made.store.slug, api, lamp, rates, zones };
}

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: SHOP_ORIGIN, smtpUrl: smtp.url } });
  excl = await regionalShop('20.00', false);
  incl = await regionalShop('23.80', true);
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const at = (shop: Shop, path: string) => `/shop/${shop.slug}${path}`;

async function shopperWithLamp(shop: Shop, quantity = 1) {
  const shopper = shopBrowser(app);
  const added = await shopper.post(at(shop, '/cart/items'), {
    productId: shop.lamp.id,
    quantity: String(quantity),
  });
  expect(added.statusCode, added.body).toBe(303);
  return shopper;
}

async function ordersOf(shop: Shop, email: string) {
  const list = (await shop.api.get('/api/v1/orders?limit=100')).json().data as {
    id: string;
    customer: { email: string };
  }[];
  return Promise.all(
    list
      .filter((o) => o.customer.email === email)
      .map(async (o) => (await shop.api.get(`/api/v1/orders/${o.id}`)).json().data),
  );
}

/** The shipping radios of a page in the order shown: [rate id, checked]. */
function radios(html: string): [string, boolean][] {
  return [...html.matchAll(/<input [^>]*name="shippingRateId"[^>]*>/g)].map((m) => [
    /value="([^"]+)"/.exec(m[0])?.[1] ?? '',
    m[0].includes('checked=""'),
  ]);
}

const update = (shopper: ShopBrowser, shop: Shop, fields: Record<string, string>) =>
  shopper.post(at(shop, '/checkout/details'), { ...fields, update: 'shipping' });

describe('shipping options at checkout', () => {
  it('lists the options of the country entered, cheapest first and checked, with their estimates, keeping what was typed', async () => {
    const shopper = await shopperWithLamp(excl);
    const first = await shopper.get(at(excl, '/checkout'));
    expect(first.statusCode).toBe(200);
    expect(textOf(first.body)).toContain('Choose your country, then update the shipping options');
    expect(first.body).toContain('Update shipping options');
    expect(radios(first.body)).toEqual([]);

    // Only a name and the country typed: the page comes back with the options, nothing refused.
    const res = await update(shopper, excl, { firstName: 'Ada', country: 'DE' });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('role="alert"');
    expect(res.body).toContain('value="Ada"');
    expect(res.body).toMatch(/<option value="DE" selected="">Germany<\/option>/);
    expect(radios(res.body)).toEqual([
      [excl.rates.Standard, true],
      [excl.rates.Express, false],
    ]);
    const text = textOf(res.body);
    expect(text).toMatch(/Standard €4\.90 2–4 business days .*Express €14\.90 1–2 business days/);
    // Nothing was saved: the cart has no address, so no payment yet.
    expect(res.body).not.toContain('name="paymentMethod"');
    expect(textOf((await shopper.get(at(excl, '/checkout'))).body)).not.toContain('Express');

    const us = await update(shopper, excl, { country: 'US' });
    expect(radios(us.body)).toEqual([[excl.rates.Ground, true]]);
    expect(textOf(us.body)).toContain('Ground €7.00 3–5 business days');
  });

  it('without JavaScript: the second option chosen is the order’s method and amount', async () => {
    const shopper = await shopperWithLamp(excl);
    const email = 'second@example.com';
    const options = await update(shopper, excl, { ...ADDRESS, email });
    expect(radios(options.body).map(([id]) => id)).toEqual([excl.rates.Standard, excl.rates.Express]);

    const saved = await shopper.post(at(excl, '/checkout/details'), {
      ...ADDRESS,
      email,
      shippingRateId: excl.rates.Express ?? '',
    });
    expect(saved.statusCode, saved.body).toBe(303);
    expect(saved.headers.location).toBe(at(excl, '/checkout#payment'));
    const page = await shopper.get(at(excl, '/checkout'));
    expect(radios(page.body)).toEqual([
      [excl.rates.Standard, false],
      [excl.rates.Express, true],
    ]);
    // 20.00 + Express 14.90 + VAT 19 % of 20.00 (shipping not taxable here) = 38.70.
    expect(textOf(page.body)).toMatch(
      /Subtotal €20\.00 Shipping \(Express\) €14\.90 VAT 19 % €3\.80 Total €38\.70/,
    );
    expect(textOf(page.body)).toContain('Place order · €38.70');

    const placed = await shopper.post(at(excl, '/checkout'), { paymentMethod: 'manual' });
    expect(placed.statusCode, placed.body).toBe(303);
    const [order] = await ordersOf(excl, email);
    expect(order).toMatchObject({
      shipping_amount: 14.9,
      shipping_method: { rate_id: excl.rates.Express, name: 'Express' },
      tax_amount: 3.8,
      tax_lines: [{ name: 'VAT', rate: '19', amount: 3.8 }],
      taxes_included: false,
      total: 38.7,
    });
  });

  it('the first post without a choice takes the cheapest, and the method can be changed after', async () => {
    const shopper = await shopperWithLamp(excl);
    const saved = await shopper.post(at(excl, '/checkout/details'), {
      ...ADDRESS,
      email: 'first@example.com',
    });
    expect(saved.statusCode, saved.body).toBe(303);
    let page = await shopper.get(at(excl, '/checkout'));
    expect(radios(page.body)).toEqual([
      [excl.rates.Standard, true],
      [excl.rates.Express, false],
    ]);
    expect(textOf(page.body)).toContain('Shipping (Standard) €4.90');
    expect(textOf(page.body)).toContain('Use this shipping method');

    // The ready page's one form: the details as the cart has them, and the method changed.
    const changed = await shopper.post(at(excl, '/checkout/details'), {
      ...ADDRESS,
      email: 'first@example.com',
      shippingRateId: excl.rates.Express ?? '',
    });
    expect(changed.statusCode).toBe(303);
    page = await shopper.get(at(excl, '/checkout'));
    expect(textOf(page.body)).toContain('Shipping (Express) €14.90');

    // A choice of another country's options (the country changed): the new country's cheapest.
    const moved = await shopper.post(at(excl, '/checkout/details'), {
      ...ADDRESS,
      email: 'first@example.com',
      country: 'US',
      region: 'California',
      shippingRateId: excl.rates.Express ?? '',
    });
    expect(moved.statusCode, moved.body).toBe(303);
    page = await shopper.get(at(excl, '/checkout'));
    expect(radios(page.body)).toEqual([[excl.rates.Ground, true]]);
    // A made-up choice (any length, any text) is no option either: the cheapest, never a 5xx.
    for (const junk of ['x'.repeat(5000), "' OR 1=1 --", '🙂']) {
      const res = await shopper.post(at(excl, '/checkout/details'), {
        ...ADDRESS,
        email: 'first@example.com',
        country: 'US',
        region: 'California',
        shippingRateId: junk,
      });
      expect(res.statusCode).toBe(303);
    }
    // The state picked by name is stored as its code, so California's tax applies: 7.25 % of 20.00.
    expect(textOf(page.body)).toMatch(/Shipping \(Ground\) €7\.00 Sales tax 7\.25 % €1\.45 Total €28\.45/);
    expect(textOf(page.body)).toContain('Berlin, CA 10117');
  });

  it('says before payment that the store does not ship to the country, and places nothing', async () => {
    const shopper = await shopperWithLamp(excl);
    const email = 'brazil@example.com';
    const options = await update(shopper, excl, { ...ADDRESS, email, country: 'BR' });
    expect(options.statusCode).toBe(200);
    expect(options.body).toMatch(
      /aria-describedby="checkout-country-error"[^>]*>.*<p id="checkout-country-error" class="field-error">We don(&#x27;|')t ship to Brazil yet\.<\/p>/s,
    );
    expect(radios(options.body)).toEqual([]);

    const refused = await shopper.post(at(excl, '/checkout/details'), { ...ADDRESS, email, country: 'BR' });
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body)).toContain("We don't ship to Brazil yet.");
    expect(refused.body).not.toContain('name="paymentMethod"');
    expect(refused.body).toContain('value="Unter den Linden 1"');

    const pay = await shopper.post(at(excl, '/checkout'), { paymentMethod: 'manual' });
    expect(pay.statusCode).toBe(400);
    expect(await ordersOf(excl, email)).toHaveLength(0);
  });

  it('before an address, the cart and the checkout say shipping and tax come from it (not "Free")', async () => {
    const shopper = await shopperWithLamp(excl);
    const expected =
      /Subtotal €20\.00 Shipping Calculated from your address Tax Calculated from your address Total €20\.00/;
    expect(textOf((await shopper.get(at(excl, '/cart'))).body)).toMatch(expected);
    expect(textOf((await shopper.get(at(excl, '/checkout'))).body)).toMatch(expected);
  });

  it('a saved address the store stopped shipping to takes no payment, and says why', async () => {
    const shop = await regionalShop('20.00', false);
    const shopper = await shopperWithLamp(shop);
    const email = 'moved@example.com';
    expect((await shopper.post(at(shop, '/checkout/details'), { ...ADDRESS, email })).statusCode).toBe(303);
    expect((await shopper.get(at(shop, '/checkout'))).body).toContain('name="paymentMethod"');
    const narrowed = await shop.api.patch(`/api/v1/shipping-zones/${shop.zones.Europe}`, {
      countries: ['AT'],
    });
    expect(narrowed.statusCode, narrowed.body).toBe(200);

    const page = await shopper.get(at(shop, '/checkout'));
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('name="paymentMethod"');
    expect(page.body).toContain(
      '<p id="checkout-country-error" class="field-error">We don&#x27;t ship to Germany yet.</p>',
    );
    const pay = await shopper.post(at(shop, '/checkout'), { paymentMethod: 'manual' });
    expect(pay.statusCode).toBe(400);
    expect(await ordersOf(shop, email)).toHaveLength(0);

    // Austria is still shipped to: choosing it opens the payment again.
    const moved = await shopper.post(at(shop, '/checkout/details'), { ...ADDRESS, email, country: 'AT' });
    expect(moved.statusCode, moved.body).toBe(303);
    expect((await shopper.get(at(shop, '/checkout'))).body).toContain('name="paymentMethod"');
  });

  it('offers the subdivisions of the country entered by name, free text still allowed', async () => {
    const shopper = await shopperWithLamp(excl);
    const res = await update(shopper, excl, { country: 'US' });
    expect(res.body).toContain('list="checkout-region-list"');
    expect(res.body).toContain('<option value="California"></option>');
    const none = await update(shopper, excl, { country: 'VA' });
    expect(none.body).not.toContain('checkout-region-list');
  });
});

describe('tax lines', () => {
  it('are added to the total on the cart and the checkout, and shown on the confirmation and the account order', async () => {
    const shopper = await shopperWithLamp(excl, 2);
    const email = shopAccountClient(app, smtp).uniqueEmail('vat');
    await shopper.post(at(excl, '/checkout/details'), { ...ADDRESS, email });
    // 2 × 20.00, Standard 4.90, VAT 19 % of 40.00 = 7.60.
    const totals = /Subtotal €40\.00 Shipping \(Standard\) €4\.90 VAT 19 % €7\.60 Total €52\.50/;
    expect(textOf((await shopper.get(at(excl, '/cart'))).body)).toMatch(totals);
    expect(textOf((await shopper.get(at(excl, '/checkout'))).body)).toMatch(totals);

    const placed = await shopper.post(at(excl, '/checkout'), { paymentMethod: 'manual' });
    const confirmation = String(placed.headers.location);
    expect(textOf((await shopper.get(confirmation)).body)).toMatch(totals);

    const [order] = await ordersOf(excl, email);
    const account = shopAccountClient(app, smtp);
    const { cookie } = await account.signIn(at(excl, ''), email);
    const page = await account.get(at(excl, `/account/orders/${order.order_number}`), cookie);
    expect(page.statusCode, page.body).toBe(200);
    expect(textOf(page.body)).toMatch(totals);
    expect(textOf(page.body)).toContain('Berlin 10117 Germany');
  });

  it('with prices including tax: "incl. VAT 19 %" under the total, not added to it', async () => {
    const shopper = await shopperWithLamp(incl);
    const email = shopAccountClient(app, smtp).uniqueEmail('incl');
    await shopper.post(at(incl, '/checkout/details'), { ...ADDRESS, email });
    // 23.80 contains 3.80 of VAT; Standard 4.90 (not taxable) is added: 28.70.
    const totals = /Subtotal €23\.80 Shipping \(Standard\) €4\.90 Total €28\.70 incl\. VAT 19 % €3\.80/;
    expect(textOf((await shopper.get(at(incl, '/cart'))).body)).toMatch(totals);
    const checkout = textOf((await shopper.get(at(incl, '/checkout'))).body);
    expect(checkout).toMatch(totals);
    expect(checkout).not.toMatch(/€3\.80 Total/);
    const placed = await shopper.post(at(incl, '/checkout'), { paymentMethod: 'manual' });
    expect(textOf((await shopper.get(String(placed.headers.location))).body)).toMatch(totals);
    const [order] = await ordersOf(incl, email);
    expect(order).toMatchObject({ total: 28.7, tax_amount: 3.8, taxes_included: true });
  });
});

describe('a store without zones', () => {
  it('shows no shipping choice and one tax row, as before', async () => {
    const made = await createStoreWithKey(app);
    const api = client(app, made.key);
    const mug = await createProduct(api, { name: 'Mug', price: '10.00', inventory: 5 });
    const shop: Shop = { slug: made.store.slug, api, lamp: mug, rates: {}, zones: {} };
    const shopper = await shopperWithLamp(shop);
    const first = await shopper.get(at(shop, '/checkout'));
    expect(first.body).not.toContain('Update shipping options');
    expect(first.body).not.toContain('Shipping method');
    await shopper.post(at(shop, '/checkout/details'), { ...ADDRESS, country: 'BR' });
    const page = await shopper.get(at(shop, '/checkout'));
    expect(radios(page.body)).toEqual([]);
    expect(textOf(page.body)).toMatch(/Shipping [^ ]+ Tax [^ ]+ Total/);
    expect(page.body).toContain('name="paymentMethod"');
  });
});
