import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody } from '../helpers/order-factories.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

let app: TestApp;
let smtp: SmtpCatcher;
let slug: string;
let storeName: string;
let merchant: ReturnType<typeof client>;
const ORIGIN = 'http://localhost:3000';
let ipCounter = 0;
/** Each test speaks from its own client IP, so the per-IP limits of one test do not leak into another. */
const nextIp = () => `10.0.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  app = await buildTestApp({ config: { ...UNLIMITED, smtpUrl: smtp.url, publicUrl: ORIGIN } });
  const store = await createStoreWithKey(app);
  slug = store.store.slug;
  storeName = store.store.name;
  merchant = client(app, store.key);
});
afterAll(async () => {
  await app.close();
  await smtp.close();
});

const post = (url: string, payload: unknown, headers: Record<string, string> = {}, ip = '10.9.9.9') =>
  app.server.inject({ method: 'POST', url, payload: payload as object, headers, remoteAddress: ip });

async function requestCode(email: string, ip = nextIp()) {
  const before = smtp.messages.length;
  const res = await post(`/api/storefront/${slug}/auth/request-code`, { email }, {}, ip);
  expect(res.statusCode, res.body).toBe(202);
  await smtp.waitFor((m) => smtp.messages.indexOf(m) >= before && (m.to ?? '').includes(email.toLowerCase()));
  const mail = smtp.messages.filter((m) => (m.to ?? '').includes(email.toLowerCase())).at(-1);
  const code = mail?.text.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error('no code in the mail');
  return { code, mail };
}

async function login(email = `shopper.${Date.now()}.${Math.random()}@example.com`) {
  const { code } = await requestCode(email);
  const res = await post(`/api/storefront/${slug}/auth/verify`, { email, code });
  expect(res.statusCode, res.body).toBe(200);
  return { email, token: res.json().data.token as string, res };
}

const asBearer = (token: string) => ({ authorization: `Bearer ${token}` });
const call = (
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  payload?: unknown,
) =>
  app.server.inject({
    method,
    url,
    headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

describe('one-time-code login', () => {
  it('mails a 6-digit code naming the store (text and HTML); verify opens a session with cookie and token', async () => {
    const email = `Ada.${Date.now()}@Example.com`;
    const { code, mail } = await requestCode(email);
    expect(mail?.subject).toContain(storeName);
    expect(mail?.text).toContain(code);
    expect(mail?.html).toContain(code);
    const res = await post(`/api/storefront/${slug}/auth/verify`, { email, code });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.token).toMatch(/^cs_/);
    expect(new Date(data.expiresAt).getTime() - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect(data.customer).toMatchObject({ email: email.toLowerCase() });
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^emporium_session=cs_[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    expect(cookie).not.toContain('Secure');
    // The cookie and the bearer token both work.
    const viaCookie = await call('GET', '/api/customer/me', { cookie: cookie.split(';')[0] as string });
    expect(viaCookie.statusCode).toBe(200);
    expect(viaCookie.json().data.email).toBe(email.toLowerCase());
    const viaBearer = await call('GET', '/api/customer/me', asBearer(data.token));
    expect(viaBearer.json().data.id).toBe(data.customer.id);
    // A code works once.
    expect((await post(`/api/storefront/${slug}/auth/verify`, { email, code })).statusCode).toBe(401);
  });

  it('answers the same for an unknown e-mail; a wrong code is 401; five wrong tries kill the code', async () => {
    const email = `locked.${Date.now()}@example.com`;
    const { code } = await requestCode(email);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 4; i++) {
      const res = await post(`/api/storefront/${slug}/auth/verify`, { email, code: wrong });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('unauthorized');
    }
    expect((await post(`/api/storefront/${slug}/auth/verify`, { email, code: wrong })).statusCode).toBe(401);
    // The right code no longer works after five wrong tries.
    const late = await post(`/api/storefront/${slug}/auth/verify`, { email, code });
    expect(late.statusCode).toBe(401);
    expect(late.json().error.message).toMatch(/request a new one/);
  });

  it('an expired code is refused', async () => {
    const email = `expired.${Date.now()}@example.com`;
    const { code } = await requestCode(email);
    await app.database.db
      .updateTable('customer_login_codes')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('email', '=', email)
      .execute();
    expect((await post(`/api/storefront/${slug}/auth/verify`, { email, code })).statusCode).toBe(401);
  });

  it('at most 5 code requests per e-mail per 15 minutes; per-IP limits too', async () => {
    const email = `throttle.${Date.now()}@example.com`;
    for (let i = 0; i < 5; i++) {
      const res = await post(`/api/storefront/${slug}/auth/request-code`, { email }, {}, nextIp());
      expect(res.statusCode).toBe(202);
    }
    const sixth = await post(`/api/storefront/${slug}/auth/request-code`, { email }, {}, nextIp());
    expect(sixth.statusCode).toBe(429);
    expect(sixth.json().error.code).toBe('rate_limited');
    expect(sixth.headers['retry-after']).toBeDefined();
    const ip = nextIp();
    const codes = [];
    for (let i = 0; i < 31; i++)
      codes.push(
        (
          await post(
            `/api/storefront/${slug}/auth/request-code`,
            { email: `ip${i}.${Date.now()}@example.com` },
            {},
            ip,
          )
        ).statusCode,
      );
    expect(codes.slice(0, 30).every((c) => c === 202)).toBe(true);
    expect(codes[30]).toBe(429);
  });

  it('a burst of 30 simultaneous requests for one e-mail from three addresses mails at most 5 codes', async () => {
    const email = `burst.${Date.now()}@example.com`;
    const before = smtp.messages.length;
    const ips = [nextIp(), nextIp(), nextIp()];
    const statuses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        post(`/api/storefront/${slug}/auth/request-code`, { email }, {}, ips[i % 3]).then(
          (r) => r.statusCode,
        ),
      ),
    );
    expect(statuses.filter((s) => s === 202)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(25);
    const stored = await app.database.db
      .selectFrom('customer_login_codes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(5);
    await expect
      .poll(() => smtp.messages.slice(before).filter((m) => (m.to ?? '').includes(email)).length)
      .toBe(5);
  });

  it('refuses malformed bodies with 400 and an unknown store with 404', async () => {
    for (const body of [{}, { email: 'nope' }, { email: 'a@b.co', extra: 1 }]) {
      expect((await post(`/api/storefront/${slug}/auth/request-code`, body)).statusCode).toBe(400);
    }
    expect(
      (await post(`/api/storefront/${slug}/auth/verify`, { email: 'a@b.co', code: '12ab56' })).statusCode,
    ).toBe(400);
    expect((await post('/api/storefront/nope-store/auth/request-code', { email: 'a@b.co' })).statusCode).toBe(
      404,
    );
  });

  it('logout ends the session; a missing or bogus session is 401', async () => {
    const { token } = await login();
    const out = await call('POST', '/api/customer/logout', asBearer(token));
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    expect((await call('GET', '/api/customer/me', asBearer(token))).statusCode).toBe(401);
    expect((await call('GET', '/api/customer/me', {})).statusCode).toBe(401);
    expect((await call('GET', '/api/customer/me', asBearer('cs_bogus'))).statusCode).toBe(401);
    expect((await call('GET', '/api/mobile/notifications/preferences', {})).statusCode).toBe(401);
  });

  it('a cookie-authenticated write needs the store origin (CSRF); bearer writes do not', async () => {
    const { res, token } = await login();
    const cookie = String(res.headers['set-cookie']).split(';')[0] as string;
    const body = { firstName: 'Eve' };
    expect((await call('PUT', '/api/customer/update', { cookie }, body)).statusCode).toBe(403);
    expect(
      (await call('PUT', '/api/customer/update', { cookie, origin: 'https://evil.example' }, body))
        .statusCode,
    ).toBe(403);
    expect((await call('PUT', '/api/customer/update', { cookie, origin: ORIGIN }, body)).statusCode).toBe(
      200,
    );
    expect(
      (await call('PUT', '/api/customer/update', { cookie, referer: `${ORIGIN}/account` }, body)).statusCode,
    ).toBe(200);
    expect((await call('PUT', '/api/customer/update', asBearer(token), body)).statusCode).toBe(200);
  });
});

describe('customer endpoints', () => {
  it('profile update, addresses with a default', async () => {
    const { token } = await login();
    const h = asBearer(token);
    const updated = await call('PUT', '/api/customer/update', h, {
      firstName: 'Ada',
      lastName: 'Lovelace',
      phone: '+1 555',
    });
    expect(updated.json().data).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', phone: '+1 555' });
    expect((await call('PUT', '/api/customer/update', h, { email: 'x@y.z' })).statusCode).toBe(400);
    const address = { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'us' };
    const first = await call('POST', '/api/customer/addresses', h, address);
    expect(first.statusCode).toBe(201);
    expect(first.json().data).toMatchObject({ ...address, country: 'US', isDefault: true });
    const second = (
      await call('POST', '/api/customer/addresses', h, { ...address, line1: '2 Side St', isDefault: true })
    ).json().data;
    let list = (await call('GET', '/api/customer/addresses', h)).json().data;
    expect(list.map((a: { line1: string; isDefault: boolean }) => [a.line1, a.isDefault])).toEqual([
      ['2 Side St', true],
      ['1 Main St', false],
    ]);
    expect((await call('DELETE', `/api/customer/addresses/${second.id}`, h)).statusCode).toBe(204);
    list = (await call('GET', '/api/customer/addresses', h)).json().data;
    expect(list).toHaveLength(1);
    expect(list[0].isDefault).toBe(true);
    expect((await call('DELETE', `/api/customer/addresses?id=${list[0].id}`, h)).statusCode).toBe(204);
    expect((await call('DELETE', `/api/customer/addresses/${list[0].id}`, h)).statusCode).toBe(404);
    expect((await call('POST', '/api/customer/addresses', h, { city: 'x' })).statusCode).toBe(400);
  });

  it('orders: only my own, with shipments and tracking; another customer gets 404', async () => {
    const { email, token } = await login();
    const product = await createProduct(merchant, { price: '10.00', inventory: 10 });
    const placed = await client(app).post(
      `/api/storefront/${slug}/checkout`,
      checkoutBody([{ productId: product.id, quantity: 2 }], {
        email,
        paymentMethod: 'test_card',
        cardToken: 'tok_visa',
      }),
    );
    const order = placed.json().data;
    await merchant.post(`/api/v1/orders/${order.id}/fulfill`, {
      carrier: 'DHL',
      tracking_number: 'JD0001',
      tracking_url: 'https://dhl.example/JD0001',
    });
    const list = (await call('GET', '/api/customer/orders', asBearer(token))).json();
    expect(list.meta.pagination.total).toBe(1);
    expect(list.data[0]).toEqual({
      id: order.id,
      orderNumber: order.orderNumber,
      status: 'completed',
      paymentStatus: 'paid',
      fulfillmentStatus: 'fulfilled',
      total: order.total,
      itemCount: 2,
      createdAt: order.createdAt,
    });
    const detail = await call('GET', `/api/customer/orders/${order.orderNumber}`, asBearer(token));
    expect(detail.statusCode).toBe(200);
    expect(detail.json().data.shipments).toEqual([
      {
        carrier: 'DHL',
        trackingNumber: 'JD0001',
        trackingUrl: 'https://dhl.example/JD0001',
        shippedAt: expect.any(String),
      },
    ]);
    const other = await login();
    expect(
      (await call('GET', `/api/customer/orders/${order.orderNumber}`, asBearer(other.token))).statusCode,
    ).toBe(404);
    expect((await call('GET', '/api/customer/orders', asBearer(other.token))).json().data).toEqual([]);
    expect((await call('GET', '/api/customer/orders/abc', asBearer(token))).statusCode).toBe(404);
    expect((await call('GET', '/api/customer/orders?limit=500', asBearer(token))).statusCode).toBe(400);
  });

  it('a session is bound to its store: it sees nothing of another store', async () => {
    const { token } = await login();
    const otherStore = await createStoreWithKey(app);
    const otherProduct = await createProduct(client(app, otherStore.key), { inventory: 5 });
    const add = await call('POST', '/api/customer/wishlist', asBearer(token), { productId: otherProduct.id });
    expect(add.statusCode).toBe(400);
  });

  it('wishlist: add (idempotent), toggle, check, delete, list with product summaries', async () => {
    const { token } = await login();
    const h = asBearer(token);
    const a = await createProduct(merchant, { price: '3.00', inventory: 5, name: 'Wish A' });
    const b = await createProduct(merchant, { price: '4.00', inventory: 0, name: 'Wish B' });
    expect((await call('POST', '/api/customer/wishlist', h, { productId: a.id })).statusCode).toBe(201);
    const again = await call('POST', '/api/customer/wishlist', h, { productId: a.id });
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual({ productId: a.id, wishlisted: true });
    expect((await call('PATCH', '/api/customer/wishlist', h, { productId: b.id })).json().data).toEqual({
      productId: b.id,
      wishlisted: true,
    });
    const list = (await call('GET', '/api/customer/wishlist', h)).json().data;
    expect(list.map((p: { name: string; inStock: boolean }) => [p.name, p.inStock])).toEqual([
      ['Wish B', false],
      ['Wish A', true],
    ]);
    expect(list[1]).toMatchObject({ id: a.id, slug: a.slug, price: '3.00' });
    expect((await call('GET', `/api/customer/wishlist/${a.id}`, h)).json().data).toEqual({
      productId: a.id,
      wishlisted: true,
    });
    expect(
      (await call('PATCH', '/api/customer/wishlist', h, { productId: a.id })).json().data.wishlisted,
    ).toBe(false);
    expect((await call('DELETE', `/api/customer/wishlist/${b.id}`, h)).statusCode).toBe(204);
    expect((await call('GET', '/api/customer/wishlist', h)).json().data).toEqual([]);
    expect((await call('POST', '/api/customer/wishlist', h, { productId: 'nope' })).statusCode).toBe(400);
    // Another customer's wishlist is their own.
    const other = await login();
    await call('POST', '/api/customer/wishlist', h, { productId: a.id });
    expect(
      (await call('GET', `/api/customer/wishlist/${a.id}`, asBearer(other.token))).json().data.wishlisted,
    ).toBe(false);
  });
});

describe('mobile endpoints', () => {
  it('registers devices (201 then 200, moved to the current customer, never duplicated)', async () => {
    const first = await login();
    const token = `fcm-${Date.now()}`;
    const res = await call('POST', '/api/mobile/device/register', asBearer(first.token), {
      token,
      platform: 'android',
      appVersion: '1.2.0',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({
      token,
      platform: 'android',
      appVersion: '1.2.0',
      deviceName: null,
    });
    const again = await call('POST', '/api/mobile/device/register', asBearer(first.token), {
      token,
      platform: 'android',
    });
    expect(again.statusCode).toBe(200);
    const second = await login();
    const moved = await call('POST', '/api/mobile/device/register', asBearer(second.token), {
      token,
      platform: 'ios',
    });
    expect(moved.statusCode).toBe(200);
    const rows = await app.database.db
      .selectFrom('customer_devices')
      .selectAll()
      .where('token', '=', token)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.customer_id).toBe(second.res.json().data.customer.id);
    expect(
      (
        await call('POST', '/api/mobile/device/register', asBearer(first.token), {
          token,
          platform: 'windows',
        })
      ).statusCode,
    ).toBe(400);
  });

  it('notification preferences default to true and update partially', async () => {
    const { token } = await login();
    const h = asBearer(token);
    expect((await call('GET', '/api/mobile/notifications/preferences', h)).json().data).toEqual({
      orderUpdates: true,
      promotions: true,
      backInStock: true,
    });
    const put = await call('PUT', '/api/mobile/notifications/preferences', h, { promotions: false });
    expect(put.json().data).toEqual({ orderUpdates: true, promotions: false, backInStock: true });
    expect((await call('GET', '/api/mobile/notifications/preferences', h)).json().data.promotions).toBe(
      false,
    );
    expect(
      (await call('PUT', '/api/mobile/notifications/preferences', h, { promotions: 'no' })).statusCode,
    ).toBe(400);
  });

  it('paid, fulfilled and cancelled orders queue pushes for the buyer devices when orderUpdates is on', async () => {
    const { email, token } = await login();
    const h = asBearer(token);
    await call('POST', '/api/mobile/device/register', h, { token: `dev-${Date.now()}`, platform: 'ios' });
    const product = await createProduct(merchant, { price: '10.00', inventory: 10 });
    const placed = (
      await client(app).post(
        `/api/storefront/${slug}/checkout`,
        checkoutBody([{ productId: product.id, quantity: 1 }], {
          email,
          paymentMethod: 'test_card',
          cardToken: 'tok_visa',
        }),
      )
    ).json().data;
    await merchant.post(`/api/v1/orders/${placed.id}/fulfill`, { carrier: 'UPS', tracking_number: '1Z' });
    const customerId = (await call('GET', '/api/customer/me', h)).json().data.id;
    const pushes = await app.database.db
      .selectFrom('push_notifications')
      .select(['title', 'body'])
      .where('customer_id', '=', customerId)
      .orderBy('created_at')
      .execute();
    expect(pushes).toHaveLength(2);
    expect(pushes[0]?.title).toContain(placed.orderNumber);
    expect(pushes[1]?.body).toContain('UPS');
    await call('PUT', '/api/mobile/notifications/preferences', h, { orderUpdates: false });
    const second = (
      await client(app).post(
        `/api/storefront/${slug}/checkout`,
        checkoutBody([{ productId: product.id, quantity: 1 }], { email }),
      )
    ).json().data;
    await merchant.post(`/api/v1/orders/${second.id}/cancel`, {});
    const after = await app.database.db
      .selectFrom('push_notifications')
      .select('id')
      .where('customer_id', '=', customerId)
      .execute();
    expect(after).toHaveLength(2);
  });
});
