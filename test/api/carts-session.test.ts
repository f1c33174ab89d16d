import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/**
 * Contract §9: with a customer session (cookie or Bearer) a cart created or touched is linked to
 * that customer, and GET /api/customer/cart returns the customer's latest open cart.
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

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const send = (method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  app.server.inject({
    method,
    url,
    headers,
    remoteAddress: `10.2.0.${++ip % 250}`,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

/** A one-time-code login at `storeSlug`: the session's token and customer id. */
async function login(storeSlug = slug, email = `cart.${Date.now()}.${ip}@example.com`) {
  const before = smtp.messages.length;
  expect((await send('POST', `/api/storefront/${storeSlug}/auth/request-code`, { email })).statusCode).toBe(
    202,
  );
  await smtp.waitFor((m) => smtp.messages.indexOf(m) >= before && (m.to ?? '').includes(email));
  const mail = smtp.messages.filter((m) => (m.to ?? '').includes(email)).at(-1);
  const code = mail?.text.match(/\b(\d{6})\b/)?.[1];
  const res = await send('POST', `/api/storefront/${storeSlug}/auth/verify`, { email, code });
  expect(res.statusCode, res.body).toBe(200);
  return { email, token: res.json().data.token as string, customerId: res.json().data.customer.id as string };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const cookie = (token: string) => ({ cookie: `emporium_session=${token}`, origin: ORIGIN });
const base = () => `/api/storefront/${slug}/carts`;
const myCart = (headers: Record<string, string>) => send('GET', '/api/customer/cart', undefined, headers);

describe('carts and customer sessions', () => {
  it('a cart created with a Bearer session is the customer’s; GET /api/customer/cart returns the latest open one', async () => {
    const shopper = await login();
    expect((await myCart(bearer(shopper.token))).statusCode).toBe(404);
    const p = await createProduct(api, { price: '5.00', inventory: 10 });
    const first = await send(
      'POST',
      base(),
      { items: [{ productId: p.id, quantity: 1 }] },
      bearer(shopper.token),
    );
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().data.customerId).toBe(shopper.customerId);
    const second = await send('POST', base(), {}, bearer(shopper.token));
    const latest = await myCart(bearer(shopper.token));
    expect(latest.statusCode).toBe(200);
    expect(latest.json().data.id).toBe(second.json().data.id);
    // Touching the first cart (a line added on the laptop) makes it the latest.
    await send(
      'POST',
      `${base()}/${first.json().data.id}/items`,
      { productId: p.id, quantity: 1 },
      cookie(shopper.token),
    );
    const now = await myCart(cookie(shopper.token));
    expect(now.json().data).toMatchObject({
      id: first.json().data.id,
      itemCount: 2,
      customerId: shopper.customerId,
    });
    expect((await myCart({})).statusCode).toBe(401);
    expect((await myCart(bearer('not-a-session'))).statusCode).toBe(401);
  });

  it('a guest cart read with a session is linked; completing it makes the order the customer’s; the completed cart is no longer "latest"', async () => {
    const shopper = await login();
    const p = await createProduct(api, { price: '5.00', inventory: 10 });
    const guest = await send('POST', base(), {
      items: [{ productId: p.id, quantity: 2 }],
      email: 'other@example.com',
    });
    const id = guest.json().data.id;
    expect(guest.json().data.customerId).toBeNull();
    const read = await send('GET', `${base()}/${id}`, undefined, bearer(shopper.token));
    expect(read.json().data.customerId).toBe(shopper.customerId);
    expect((await myCart(bearer(shopper.token))).json().data.id).toBe(id);

    // Completed by the phone without a session: the order is still the linked customer's.
    const done = await send('POST', `${base()}/${id}/complete`, { paymentMethod: 'manual' });
    expect(done.statusCode, done.body).toBe(201);
    const orders = await send('GET', '/api/customer/orders', undefined, bearer(shopper.token));
    expect(orders.json().data.map((o: { id: string }) => o.id)).toContain(done.json().data.id);
    expect((await myCart(bearer(shopper.token))).statusCode).toBe(404);
  });

  it('a session of another store is not attached; a dead session is 401; a cross-site cookie write is 403', async () => {
    const elsewhere = await login(otherSlug);
    const res = await send('POST', base(), {}, bearer(elsewhere.token));
    expect(res.statusCode).toBe(201);
    expect(res.json().data.customerId).toBeNull();
    expect((await send('POST', base(), {}, bearer('x'.repeat(43)))).statusCode).toBe(401);
    const shopper = await login();
    const crossSite = await send(
      'POST',
      base(),
      {},
      {
        cookie: `emporium_session=${shopper.token}`,
        origin: 'https://evil.example',
      },
    );
    expect(crossSite.statusCode).toBe(403);
  });
});
