import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody } from '../helpers/order-factories.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/**
 * Contract §4: "With a customer session the order belongs to that customer; otherwise the customer
 * is found or created by e-mail." The session is optional at checkout; a bad one is 401; a session
 * of another store is not attached.
 */
let app: TestApp;
let smtp: SmtpCatcher;
let api: Client;
let slug: string;
let otherSlug: string;
const ORIGIN = 'http://localhost:3000';
let ip = 0;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  app = await buildTestApp({ config: { ...UNLIMITED, smtpUrl: smtp.url, publicUrl: ORIGIN } });
  const store = await createStoreWithKey(app);
  slug = store.store.slug;
  api = client(app, store.key);
  otherSlug = (await createStoreWithKey(app)).store.slug;
});
afterAll(async () => {
  await app.close();
  await smtp.close();
});

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  app.server.inject({
    method: 'POST',
    url,
    payload: payload as object,
    headers,
    remoteAddress: `10.1.0.${++ip % 250}`,
  });

/** A one-time-code login at `storeSlug`: the session's token and customer id. */
async function login(storeSlug = slug, email = `shopper.${Date.now()}.${ip}@example.com`) {
  const before = smtp.messages.length;
  expect((await post(`/api/storefront/${storeSlug}/auth/request-code`, { email })).statusCode).toBe(202);
  await smtp.waitFor((m) => smtp.messages.indexOf(m) >= before && (m.to ?? '').includes(email));
  const mail = smtp.messages.filter((m) => (m.to ?? '').includes(email)).at(-1);
  const code = mail?.text.match(/\b(\d{6})\b/)?.[1];
  const res = await post(`/api/storefront/${storeSlug}/auth/verify`, { email, code });
  expect(res.statusCode, res.body).toBe(200);
  return { email, token: res.json().data.token as string, customerId: res.json().data.customer.id as string };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const cookie = (token: string) => ({ cookie: `emporium_session=${token}`, origin: ORIGIN });
const checkout = (body: unknown, headers?: Record<string, string>) =>
  post(`/api/storefront/${slug}/checkout`, body, headers);
const quote = (body: unknown, headers?: Record<string, string>) =>
  post(`/api/storefront/${slug}/checkout/quote`, body, headers);
const ownerOf = async (orderId: string) => (await api.get(`/api/v1/orders/${orderId}`)).json().data.customer;
const customersWith = async (email: string) => (await api.get(`/api/v1/customers?q=${email}`)).json().data;

describe('checkout with a customer session', () => {
  it('Bearer: the order belongs to the signed-in customer, whatever e-mail the body gives', async () => {
    const shopper = await login();
    const p = await createProduct(api, { inventory: 10 });
    const other = `someone.else.${Date.now()}@example.com`;
    const res = await checkout(
      checkoutBody([{ productId: p.id, quantity: 1 }], { email: other }),
      bearer(shopper.token),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(await ownerOf(res.json().data.id)).toMatchObject({ id: shopper.customerId, email: shopper.email });
    expect(await customersWith(other)).toEqual([]);
    const mine = await app.server.inject({
      method: 'GET',
      url: '/api/customer/orders',
      headers: bearer(shopper.token),
    });
    expect(mine.json().data.map((o: { id: string }) => o.id)).toEqual([res.json().data.id]);
  });

  it('cookie (same origin): the order belongs to the signed-in customer', async () => {
    const shopper = await login();
    const p = await createProduct(api, { inventory: 10 });
    const res = await checkout(
      checkoutBody([{ productId: p.id, quantity: 1 }], { email: `typo.${Date.now()}@example.com` }),
      cookie(shopper.token),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect((await ownerOf(res.json().data.id)).id).toBe(shopper.customerId);
  });

  it('quote: once-per-customer eligibility is the session customer’s, not the e-mail’s', async () => {
    const shopper = await login();
    const p = await createProduct(api, { inventory: 10, price: '20.00' });
    const code = `ONCE${Date.now()}`;
    expect(
      (
        await api.post('/api/v1/discounts', {
          code,
          type: 'percentage',
          value: '10',
          once_per_customer: true,
        })
      ).statusCode,
    ).toBe(201);
    const first = await checkout(
      checkoutBody([{ productId: p.id, quantity: 1 }], { couponCode: code }),
      bearer(shopper.token),
    );
    expect(first.statusCode, first.body).toBe(201);

    const fresh = checkoutBody([{ productId: p.id, quantity: 1 }], {
      couponCode: code,
      email: `new.${Date.now()}@example.com`,
    });
    const asShopper = await quote(fresh, bearer(shopper.token));
    expect(asShopper.statusCode).toBe(400);
    expect(asShopper.json().error.details).toEqual([
      { field: 'couponCode', message: 'it has already been used by this customer' },
    ]);
    const again = await checkout(fresh, bearer(shopper.token));
    expect(again.statusCode).toBe(400);
    // Without the session that e-mail is a new buyer, who may use it.
    expect((await quote(fresh)).json().data).toMatchObject({ couponCode: code, discountAmount: 2 });
  });

  it('an invalid or expired session is 401 (a cookie one is cleared); nothing is created', async () => {
    const p = await createProduct(api, { inventory: 10 });
    const body = checkoutBody([{ productId: p.id, quantity: 1 }]);
    const viaBearer = await checkout(body, bearer('cs_not_a_session'));
    expect(viaBearer.statusCode).toBe(401);
    expect(viaBearer.json().error.code).toBe('unauthorized');
    expect((await quote(body, bearer('cs_not_a_session'))).statusCode).toBe(401);
    const viaCookie = await checkout(body, cookie('cs_expired_or_revoked'));
    expect(viaCookie.statusCode).toBe(401);
    expect(String(viaCookie.headers['set-cookie'])).toMatch(/^emporium_session=;.*Max-Age=0/);
    expect(await customersWith(body.email)).toEqual([]);
    expect((await api.get(`/api/v1/inventory/${p.id}`)).json().data.inventory).toBe(10);
  });

  it('a session of another store is not attached: the buyer is found or created by e-mail', async () => {
    const elsewhere = await login(otherSlug);
    const p = await createProduct(api, { inventory: 10 });
    const body = checkoutBody([{ productId: p.id, quantity: 1 }]);
    const res = await checkout(body, bearer(elsewhere.token));
    expect(res.statusCode, res.body).toBe(201);
    const owner = await ownerOf(res.json().data.id);
    expect(owner.email).toBe(body.email);
    expect(owner.id).not.toBe(elsewhere.customerId);
  });

  it('a cookie session from another origin is refused (403), as on every customer write', async () => {
    const shopper = await login();
    const p = await createProduct(api, { inventory: 10 });
    const res = await checkout(checkoutBody([{ productId: p.id, quantity: 1 }]), {
      cookie: `emporium_session=${shopper.token}`,
      origin: 'https://evil.example',
    });
    expect(res.statusCode).toBe(403);
  });
});
