import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody } from '../helpers/order-factories.js';
import { type Shopper, shopAccountClient } from '../helpers/shop-account.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/** The signed-in shop account over HTTP: details, orders with tracking, addresses, wishlist. */
let app: TestApp;
let smtp: SmtpCatcher;
let shop: string;
let merchant: Client;
let shopper: Shopper;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  app = await buildTestApp({
    config: { ...UNLIMITED, smtpUrl: smtp.url, publicUrl: 'http://localhost:3000' },
  });
  const store = await createStoreWithKey(app);
  shop = `/shop/${store.store.slug}`;
  merchant = client(app, store.key);
  shopper = shopAccountClient(app, smtp);
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const signIn = () => shopper.signIn(shop);
const page = async (path: string, cookie: string) => {
  const res = await shopper.get(`${shop}${path}`, cookie);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['cache-control']).toBe('private, no-store');
  return res.body;
};

/** An order placed through the storefront checkout API for this e-mail. */
async function placeOrder(email: string, price = '10.00', quantity = 2) {
  const product = await createProduct(merchant, { name: 'Enamel Mug', price, inventory: 10 });
  const placed = await client(app).post(
    `/api/storefront/${shop.split('/')[2]}/checkout`,
    checkoutBody([{ productId: product.id, quantity }], {
      email,
      paymentMethod: 'test_card',
      cardToken: 'tok_visa',
    }),
  );
  expect(placed.statusCode, placed.body).toBe(201);
  return placed.json().data as { id: string; orderNumber: string; total: number };
}

describe('the account pages', () => {
  it('updates the first and last name and phone (post, redirect, get)', async () => {
    const { cookie, email } = await signIn();
    const res = await shopper.post(
      `${shop}/account/profile`,
      { firstName: ' Ada ', lastName: 'Lovelace', phone: '+44 20 7946 0000' },
      { cookie },
    );
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${shop}/account?done=profile`);
    const html = await page('/account?done=profile', cookie);
    expect(html).toContain('Hello, Ada Lovelace');
    expect(html).toContain('Your details were saved.');
    expect(html).toContain('value="+44 20 7946 0000"');
    const me = await app.server.inject({ method: 'GET', url: '/api/customer/me', headers: { cookie } });
    expect(me.json().data).toMatchObject({
      email,
      firstName: 'Ada',
      lastName: 'Lovelace',
      phone: '+44 20 7946 0000',
    });
    const tooLong = await shopper.post(`${shop}/account/profile`, { firstName: 'x'.repeat(101) }, { cookie });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.body).toContain('role="alert"');
  });

  it('lists my orders and shows one with its shipment and tracking link once the merchant fulfils it', async () => {
    const { cookie, email } = await signIn();
    const order = await placeOrder(email);
    let html = await page('/account', cookie);
    expect(html).toContain(`href="${shop}/account/orders/${order.orderNumber}"`);
    expect(html).toContain(`Order #${order.orderNumber}`);
    expect(html).toContain('$20.00');
    expect(html).toContain('2 items');
    html = await page(`/account/orders/${order.orderNumber}`, cookie);
    expect(html).toContain('Enamel Mug');
    expect(html).toContain('Not shipped yet');
    expect(html).toContain('1 Main St');

    const fulfil = await merchant.post(`/api/v1/orders/${order.id}/fulfill`, {
      carrier: 'DHL',
      tracking_number: 'JD0001',
      tracking_url: 'https://dhl.example/track?n=JD0001',
    });
    expect(fulfil.statusCode, fulfil.body).toBe(200);
    html = await page(`/account/orders/${order.orderNumber}`, cookie);
    expect(html).toContain(' with DHL');
    expect(html).toContain('JD0001');
    expect(html).toContain('href="https://dhl.example/track?n=JD0001"');
    expect(html).toContain('Fulfilled');
    html = await page('/account', cookie);
    expect(html).toContain('Completed');
    expect(html).toContain('Paid');
  });

  it('pages the order list, ten at a time', async () => {
    const { cookie, email } = await signIn();
    for (let i = 0; i < 11; i++) await placeOrder(email, '1.00', 1);
    const first = await page('/account', cookie);
    expect(first.match(/class="order-row"/g)).toHaveLength(10);
    expect(first).toContain('Page 1 of 2');
    expect(first).toContain(`href="${shop}/account?page=2"`);
    const second = await page('/account?page=2', cookie);
    expect(second.match(/class="order-row"/g)).toHaveLength(1);
    expect(second).toContain('Newer orders');
  });

  it("another customer's order, or no order, is the shop's 404 page; signed out, the order asks to sign in", async () => {
    const owner = await signIn();
    const order = await placeOrder(owner.email);
    const other = await signIn();
    for (const path of [
      `/account/orders/${order.orderNumber}`,
      '/account/orders/abc',
      '/account/orders/99999999',
    ]) {
      const res = await shopper.get(`${shop}${path}`, other.cookie);
      expect(res.statusCode, path).toBe(404);
      expect(res.body).toContain('Page not found');
      expect(res.body).not.toContain('Enamel Mug');
    }
    const signedOut = await shopper.get(`${shop}/account/orders/${order.orderNumber}`);
    expect(signedOut.statusCode).toBe(303);
    expect(signedOut.headers.location).toBe(
      `${shop}/account/sign-in?return=${encodeURIComponent(`/account/orders/${order.orderNumber}`)}`,
    );
  });

  it('adds addresses (the first is the default), refuses an incomplete one, and deletes them', async () => {
    const { cookie } = await signIn();
    expect(await page('/account/addresses', cookie)).toContain('No saved addresses yet');
    const address = { line1: '12 Rue de la Paix', city: 'Paris', postalCode: '75002', country: 'fr' };
    const added = await shopper.post(`${shop}/account/addresses`, address, { cookie });
    expect(added.statusCode).toBe(303);
    expect(added.headers.location).toBe(`${shop}/account/addresses?done=address-added`);
    const second = {
      line1: '1 Main St',
      line2: 'Apt 4',
      city: 'Springfield',
      region: 'IL',
      postalCode: '62701',
      country: 'US',
      phone: '555-0100',
      isDefault: 'on',
    };
    expect((await shopper.post(`${shop}/account/addresses`, second, { cookie })).statusCode).toBe(303);
    const html = await page('/account/addresses?done=address-added', cookie);
    expect(html).toContain('The address was saved.');
    expect(html).toContain('12 Rue de la Paix');
    expect(html).toContain('FR');
    expect(html).toContain('Apt 4');
    const api = await app.server.inject({
      method: 'GET',
      url: '/api/customer/addresses',
      headers: { cookie },
    });
    const saved = api.json().data as { id: string; line1: string; isDefault: boolean }[];
    expect(saved.find((a) => a.line1 === '1 Main St')?.isDefault).toBe(true);
    expect(saved.find((a) => a.line1 === '12 Rue de la Paix')?.isDefault).toBe(false);

    const bad = await shopper.post(
      `${shop}/account/addresses`,
      { ...address, country: 'France' },
      { cookie },
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Country must be a 2-letter code');
    expect(bad.body).toContain('value="12 Rue de la Paix"');
    const missing = await shopper.post(`${shop}/account/addresses`, { city: 'Paris' }, { cookie });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('Address is required.');

    // Someone else cannot delete my address.
    const other = await signIn();
    const id = saved[0]?.id as string;
    expect(
      (await shopper.post(`${shop}/account/addresses/${id}/delete`, {}, { cookie: other.cookie })).statusCode,
    ).toBe(404);
    const deleted = await shopper.post(`${shop}/account/addresses/${id}/delete`, {}, { cookie });
    expect(deleted.statusCode).toBe(303);
    expect(deleted.headers.location).toBe(`${shop}/account/addresses?done=address-deleted`);
    const after = await app.server.inject({
      method: 'GET',
      url: '/api/customer/addresses',
      headers: { cookie },
    });
    expect(after.json().data).toHaveLength(1);
  });

  it('saves a product to the wishlist from its page, lists it, and removes it', async () => {
    const product = await createProduct(merchant, { name: 'Linen Apron', price: '24.00', inventory: 3 });
    // Signed out: the sign-in, which comes back to the product.
    const signedOut = await shopper.post(`${shop}/account/wishlist`, { productId: product.id });
    expect(signedOut.statusCode).toBe(303);
    expect(signedOut.headers.location).toBe(
      `${shop}/account/sign-in?return=${encodeURIComponent(`/products/${product.slug}`)}`,
    );
    const { cookie } = await signIn();
    expect(await page('/account/wishlist', cookie)).toContain('Nothing saved yet');
    for (let i = 0; i < 2; i++) {
      const res = await shopper.post(`${shop}/account/wishlist`, { productId: product.id }, { cookie });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(`${shop}/account/wishlist?done=wishlist-added`);
    }
    const html = await page('/account/wishlist?done=wishlist-added', cookie);
    expect(html).toContain('Saved to your wishlist.');
    expect(html).toContain('Linen Apron');
    expect(html).toContain(`href="${shop}/products/${product.slug}"`);
    expect(html).toContain('$24.00');
    const check = await app.server.inject({
      method: 'GET',
      url: `/api/customer/wishlist/${product.id}`,
      headers: { cookie },
    });
    expect(check.json().data.wishlisted).toBe(true);

    // The product page's script asks whether the product is saved: private, and 200 signed out too.
    const state = await shopper.get(`${shop}/account/wishlist/state?productId=${product.id}`, cookie);
    expect(state.headers['cache-control']).toBe('private, no-store');
    expect(state.json()).toEqual({ signedIn: true, wishlisted: true });
    const anonymous = await shopper.get(`${shop}/account/wishlist/state?productId=${product.id}`);
    expect(anonymous.statusCode).toBe(200);
    expect(anonymous.json()).toEqual({ signedIn: false, wishlisted: false });

    const unknown = await shopper.post(`${shop}/account/wishlist`, { productId: 'nope' }, { cookie });
    expect(unknown.statusCode).toBe(404);
    const removed = await shopper.post(`${shop}/account/wishlist/${product.id}/delete`, {}, { cookie });
    expect(removed.statusCode).toBe(303);
    expect(removed.headers.location).toBe(`${shop}/account/wishlist?done=wishlist-removed`);
    const after = await page('/account/wishlist?done=wishlist-removed', cookie);
    expect(after).toContain('Removed from your wishlist.');
    expect(after).not.toContain('Linen Apron');
    const cleared = await shopper.get(`${shop}/account/wishlist/state?productId=${product.id}`, cookie);
    expect(cleared.json()).toEqual({ signedIn: true, wishlisted: false });
  });

  it('refuses cross-origin writes on every account form', async () => {
    const { cookie } = await signIn();
    for (const path of ['/account/addresses', '/account/wishlist', '/account/profile', '/account/sign-out']) {
      const res = await shopper.post(
        `${shop}${path}`,
        { line1: 'x' },
        { cookie, origin: 'https://evil.example' },
      );
      expect(res.statusCode, path).toBe(403);
    }
  });
});
