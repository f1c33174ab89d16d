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
import { SHOP_ORIGIN, type ShopBrowser, shopBrowser, textOf } from '../helpers/shop-client.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/**
 * The shop's cart with a signed-in customer (carts linked to the customer as the carts API links
 * them, one cart across devices, the customer's orders shown on any device), and production mode
 * (no test card offered).
 */
let app: TestApp;
let smtp: SmtpCatcher;
let api: Client;
let slug: string;
let lamp: ProductData;
let ip = 0;

const ADDRESS = {
  firstName: 'Grace',
  lastName: 'Hopper',
  line1: '1 Compiler Way',
  city: 'Arlington',
  region: 'VA',
  postalCode: '22201',
  country: 'US',
};

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  app = await buildTestApp({ config: { ...UNLIMITED, smtpUrl: smtp.url, publicUrl: SHOP_ORIGIN } });
  const made = await createStoreWithKey(app);
  slug = made.store.slug;
  api = client(app, made.key);
  lamp = await createProduct(api, { name: 'Desk Lamp', price: '30.00', inventory: 20 });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const shopPath = (path: string) => `/shop/${slug}${path}`;

/** A one-time-code sign-in through the storefront API: the session token and customer id. */
async function signIn(email: string) {
  const send = (url: string, payload: object) =>
    app.server.inject({ method: 'POST', url, payload, remoteAddress: `10.9.0.${++ip}` });
  const before = smtp.messages.length;
  expect((await send(`/api/storefront/${slug}/auth/request-code`, { email })).statusCode).toBe(202);
  await smtp.waitFor((m) => smtp.messages.indexOf(m) >= before && (m.to ?? '').includes(email));
  const code = smtp.messages
    .filter((m) => (m.to ?? '').includes(email))
    .at(-1)
    ?.text.match(/\b(\d{6})\b/)?.[1];
  const res = await send(`/api/storefront/${slug}/auth/verify`, { email, code });
  expect(res.statusCode, res.body).toBe(200);
  return { token: res.json().data.token as string, customerId: res.json().data.customer.id as string };
}

function signedInBrowser(token: string): ShopBrowser {
  const browser = shopBrowser(app);
  browser.setCookie('emporium_session', token, '/');
  return browser;
}

describe('a signed-in shopper', () => {
  it("links the cart to the customer, finds it again on another device, and shows the customer's order anywhere", async () => {
    const email = `grace.${Date.now()}@example.com`;
    const { token, customerId } = await signIn(email);
    const laptop = signedInBrowser(token);
    expect(
      (await laptop.post(shopPath('/cart/items'), { productId: lamp.id, quantity: '2' })).statusCode,
    ).toBe(303);
    const myCart = await app.server.inject({
      method: 'GET',
      url: '/api/customer/cart',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(myCart.statusCode).toBe(200);
    expect(myCart.json().data).toMatchObject({
      id: laptop.cookie('emporium_cart'),
      customerId,
      itemCount: 2,
    });

    // The phone has no cart cookie yet: it gets the customer's latest open cart.
    const phone = signedInBrowser(token);
    const onPhone = await phone.get(shopPath('/cart'));
    expect(textOf(onPhone.body)).toContain('Desk Lamp');
    expect(phone.cookie('emporium_cart')).toBe(laptop.cookie('emporium_cart'));

    // The checkout starts from the customer's e-mail and default address.
    await app.services.customers.addAddress(
      (await app.services.stores.getActiveStoreBySlug(slug)).id,
      customerId,
      { line1: '9 Harbour St', city: 'Boston', region: 'MA', postal_code: '02110', country: 'us' },
    );
    const checkout = await phone.get(shopPath('/checkout'));
    expect(checkout.body).toContain(`value="${email}"`);
    expect(checkout.body).toContain('value="9 Harbour St"');
    expect(checkout.body).toMatch(/<option value="US" selected="">United States<\/option>/);
    await phone.post(shopPath('/checkout/details'), { ...ADDRESS, email });
    const placed = await phone.post(shopPath('/checkout'), {
      paymentMethod: 'test_card',
      cardToken: 'tok_visa',
    });
    expect(placed.statusCode).toBe(303);
    const confirmation = String(placed.headers.location);
    const orders = await app.server.inject({
      method: 'GET',
      url: '/api/customer/orders',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(orders.json().data).toHaveLength(1);

    // The laptop holds no receipt, but the order is the signed-in customer's.
    const onLaptop = await laptop.get(confirmation);
    expect(onLaptop.statusCode).toBe(200);
    expect(textOf(onLaptop.body)).toContain('Payment received.');
    // Its cart cookie names the completed cart: the cart is empty again there, and the cookie cleared.
    expect(textOf((await laptop.get(shopPath('/cart'))).body)).toContain('Your cart is empty.');
    expect(laptop.cookie('emporium_cart')).toBeUndefined();

    // Another customer (signed in, no receipt) does not see it.
    const other = signedInBrowser((await signIn(`other.${Date.now()}@example.com`)).token);
    expect((await other.get(confirmation)).statusCode).toBe(404);
  });
});

describe('production mode', () => {
  it('offers no test card, and refuses one posted anyway', async () => {
    const production = await buildTestApp({
      testDatabase: app.testDatabase,
      config: { ...UNLIMITED, publicUrl: SHOP_ORIGIN, production: true },
    });
    try {
      const shopper = shopBrowser(production);
      await shopper.post(shopPath('/cart/items'), { productId: lamp.id, quantity: '1' });
      await shopper.post(shopPath('/checkout/details'), { ...ADDRESS, email: 'prod@example.com' });
      const page = await shopper.get(shopPath('/checkout'));
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('value="test_card"');
      expect(page.body).not.toContain('tok_visa');
      expect(page.body).toContain('value="manual"');
      const forced = await shopper.post(shopPath('/checkout'), {
        paymentMethod: 'test_card',
        cardToken: 'tok_visa',
      });
      expect(forced.statusCode).toBe(400);
      expect(textOf(forced.body)).toContain('Choose a payment method.');
    } finally {
      await production.close();
    }
  });
});
