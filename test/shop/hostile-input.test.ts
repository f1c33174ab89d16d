import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
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
import { SHOP_ORIGIN } from '../helpers/shop-client.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/**
 * Hostile input on every route of the web shop (issue 16): whatever a client sends, the answer is a
 * page (or a redirect), never a 5xx, and a refused request changes nothing (no cart, no order, no
 * stock moved). The routes are read from the app itself, so a new shop route fails this file until
 * it is listed in ROUTES below, with the values its parameters are tried with.
 */
let app: TestApp;
let smtp: SmtpCatcher;
let api: Client;
let shop: string;
let storeName: string;
let mug: ProductData;
let otherCartId: string;
/** A signed-in shopper of this store with an open cart: the deepest path through each route. */
let shopperCookie: string;

/** Every shop route as `METHOD /path` below /shop/:slug. */
const ROUTES = [
  'GET /',
  'GET /products',
  'GET /products/:productSlug',
  'POST /products/:productSlug/notify-me',
  'GET /sitemap.xml',
  'GET /sitemap-:n.xml',
  'GET /robots.txt',
  'GET /favicon.ico',
  'GET /cart',
  'POST /cart/items',
  'POST /cart/items/:itemId',
  'POST /cart/items/:itemId/remove',
  'POST /cart/coupon',
  'POST /cart/coupon/remove',
  'GET /checkout',
  'POST /checkout',
  'POST /checkout/details',
  'GET /orders/:orderNumber/confirmation',
  'GET /orders/:orderNumber/pay',
  'GET /account',
  'GET /account/sign-in',
  'POST /account/sign-in',
  'POST /account/sign-out',
  'GET /account/verify',
  'POST /account/verify',
  'POST /account/profile',
  'GET /account/orders/:orderNumber',
  'GET /account/addresses',
  'POST /account/addresses',
  'POST /account/addresses/:id/delete',
  'GET /account/wishlist',
  'POST /account/wishlist',
  'GET /account/wishlist/state',
  'POST /account/wishlist/:productId/delete',
];

/** `METHOD /path` of every route under /shop/:slug, read from Fastify's route tree. */
function shopRoutesOf(tree: string): string[] {
  const found: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([\s│├└─]*)(\S.*?) \(([A-Z, ]+)\)$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(match[2] ?? '');
    const path = stack.join('');
    if (!path.startsWith('/shop/:slug/')) continue;
    for (const method of (match[3] ?? '').split(', '))
      if (method === 'GET' || method === 'POST') found.push(`${method} ${path.slice('/shop/:slug'.length)}`);
  }
  return found;
}

/** Odd values for a path parameter: very long, unicode, dot segments, NUL, a UUID of nothing. */
const ODD_PARAMS = [
  'x'.repeat(5000),
  '9'.repeat(40),
  '-1',
  '0',
  '1e9',
  '%F0%9F%98%80%E2%80%AE',
  '..',
  '%2e%2e',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '%00',
  '%E0%A4%A',
  '00000000-0000-0000-0000-000000000000',
  '%23',
];

const LONG = 'q'.repeat(100 * 1024);
/** Query strings thrown at every route. */
const ODD_QUERIES = [
  `q=${LONG}`,
  `page=${LONG}`,
  `email=${LONG}`,
  'q=a&q=b&page=1&page=2&sort=name&sort=x',
  'page[]=1&q[]=a&category[]=x&sort[]=name',
  'q[a]=1&page[a]=2&email[a]=x&return[a]=y&done[a]=z&productId[a]=1',
  'page=-1',
  'page=0',
  'page=1e9',
  'page=abc',
  'page=NaN',
  'page=99999999999999999999',
  'q=%E0%A4%A&page=%E0%A4%A',
  '%E0%A4%A=1',
  'q=%00&category=%00&email=a%00@b.co&return=/%00',
  'category=..&return=//evil.example&redirect_status[]=x&productId=..',
  'done=__proto__&constructor=1&__proto__[x]=1',
];

const pathOf = (route: string, param: string) => route.replace(/:[A-Za-z]+/g, param);

function defaultParam(route: string): string {
  if (route.includes(':productSlug')) return mug.slug;
  if (route.includes(':n')) return '1';
  if (route.includes(':orderNumber')) return '1';
  return mug.id;
}

async function send(
  method: string,
  url: string,
  options: { cookie?: string; body?: string; type?: string; origin?: string | null } = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  if (method === 'POST') {
    if (options.origin !== null) headers.origin = options.origin ?? SHOP_ORIGIN;
    headers['content-type'] = options.type ?? 'application/x-www-form-urlencoded';
  }
  if (options.cookie) headers.cookie = options.cookie;
  return app.server.inject({
    method: method as 'GET' | 'POST',
    url,
    headers,
    ...(method === 'POST' ? { payload: options.body ?? '' } : {}),
  });
}

/** Never a 5xx; an error is an HTML page in the shop's frame (or the 404 page). */
function expectPage(res: LightMyRequestResponse, what: string) {
  expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
  if (res.statusCode >= 400) {
    expect(res.headers['content-type'], what).toBe('text/html; charset=utf-8');
    expect(res.body, what).toContain(storeName);
  }
}

/** The rows a refused request must not touch. */
async function footprint() {
  const count = async (table: string) =>
    Number(
      (await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(app.database.db))
        .rows[0]?.n,
    );
  const stock = (await api.get(`/api/v1/inventory/${mug.id}?type=product`)).json().data.inventory as number;
  return {
    carts: await count('carts'),
    items: await count('cart_items'),
    lines: Number(
      (
        await sql<{
          n: string;
        }>`select coalesce(sum(quantity), 0) as n from cart_items`.execute(app.database.db)
      ).rows[0]?.n,
    ),
    orders: await count('orders'),
    addresses: await count('customer_addresses'),
    wishlist: await count('wishlist_items'),
    stock,
  };
}

const cookieSets = () => [
  undefined,
  shopperCookie,
  `emporium_cart=${'c'.repeat(10 * 1024)}`,
  'emporium_cart=ünïcødé☃; emporium_session=%E0%A4%A',
  `emporium_cart=${otherCartId}`,
  `emporium_session=${'s'.repeat(4000)}; emporium_receipt=..`,
  'emporium_session=garbage.garbage.garbage; emporium_receipt=%00',
  'emporium_cart=; emporium_cart=x; =; ;;',
];

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  app = await buildTestApp({ config: { ...UNLIMITED, smtpUrl: smtp.url, publicUrl: SHOP_ORIGIN } });
  const made = await createStoreWithKey(app);
  shop = `/shop/${made.store.slug}`;
  storeName = made.store.name.replace(/&/g, '&amp;');
  api = client(app, made.key);
  mug = await createProduct(api, { name: 'Hostile Mug', price: '10.00', inventory: 5 });
  const other = await createStoreWithKey(app);
  const otherMug = await createProduct(client(app, other.key), { name: 'Other Mug', inventory: 5 });
  const otherCart = await send('POST', `/shop/${other.store.slug}/cart/items`, {
    body: `productId=${otherMug.id}&quantity=1`,
  });
  otherCartId = /emporium_cart=([^;]+)/.exec(String(otherCart.headers['set-cookie']))?.[1] ?? '';
  expect(otherCartId).not.toBe('');
  const signedIn = await shopAccountClient(app, smtp).signIn(shop);
  const added = await send('POST', `${shop}/cart/items`, {
    cookie: signedIn.cookie,
    body: `productId=${mug.id}&quantity=1`,
  });
  expect(added.statusCode, added.body).toBe(303);
  const cart = /emporium_cart=[^;]+/.exec(String(added.headers['set-cookie']))?.[0];
  shopperCookie = `${signedIn.cookie}; ${cart}`;
}, 120_000);
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

describe('hostile input on the web shop', () => {
  it('covers every route of the shop (a new route must be added to ROUTES)', () => {
    const routes = shopRoutesOf(app.server.printRoutes({ commonPrefix: false }));
    expect(routes.length).toBeGreaterThan(10);
    expect([...routes].sort()).toEqual([...ROUTES].sort());
  });

  it('answers odd query strings on every route with a page, never a 5xx', async () => {
    for (const route of ROUTES) {
      const [method = 'GET', path = '/'] = route.split(' ');
      // Signing out would end the session the other requests use; it is tried signed out only.
      const cookies = route === 'POST /account/sign-out' ? [undefined] : [undefined, shopperCookie];
      for (const cookie of cookies)
        for (const query of ODD_QUERIES) {
          const res = await send(method, `${shop}${pathOf(path, defaultParam(path))}?${query}`, { cookie });
          expectPage(res, `${route}?${query.slice(0, 60)} ${cookie ? 'signed in' : ''}`);
        }
    }
  });

  it('answers odd path parameters with a page (mostly the 404 page), never a 5xx', async () => {
    const before = await footprint();
    for (const route of ROUTES.filter((r) => r.includes(':'))) {
      const [method = 'GET', path = '/'] = route.split(' ');
      for (const param of ODD_PARAMS)
        for (const cookie of [undefined, shopperCookie]) {
          const res = await send(method, `${shop}${pathOf(path, param)}`, { cookie });
          expectPage(res, `${route} with ${param.slice(0, 40)}`);
        }
    }
    // Segments the router itself refuses (too long, broken encoding) get the shop's 404 page too.
    for (const param of ['x'.repeat(5000), '%E0%A4%A']) {
      const res = await send('GET', `${shop}/products/${param}`);
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('Page not found');
    }
    // Odd line ids and product ids remove nothing; the shopper's one cart line is still there.
    expect(await footprint()).toEqual(before);
  });

  it('answers garbage cookies on every route with a page, never a 5xx', async () => {
    for (const route of ROUTES) {
      const [method = 'GET', path = '/'] = route.split(' ');
      if (route === 'POST /account/sign-out') continue;
      for (const cookie of cookieSets().slice(2)) {
        const res = await send(method, `${shop}${pathOf(path, defaultParam(path))}`, { cookie });
        expectPage(res, `${route} with cookie ${cookie?.slice(0, 40)}`);
      }
    }
  });

  it('refuses posts without a trusted Origin (403 page) and changes nothing', async () => {
    const before = await footprint();
    for (const route of ROUTES.filter((r) => r.startsWith('POST'))) {
      const path = pathOf(route.slice(5), defaultParam(route));
      const body = `productId=${mug.id}&quantity=1&email=a@example.com&code=DEAL`;
      for (const origin of [null, 'https://evil.example', 'null', 'http://localhost:3000.evil.example']) {
        const res = await send('POST', `${shop}${path}`, { cookie: shopperCookie, origin, body });
        expect(res.statusCode, `${route} from ${origin}`).toBe(403);
        expectPage(res, `${route} from ${origin}`);
      }
    }
    expect(await footprint()).toEqual(before);
  });

  it('refuses bodies of the wrong kind or size on every form (4xx page) and changes nothing', async () => {
    const before = await footprint();
    const bodies: { body: string; type?: string; status?: number; name: string }[] = [
      {
        name: '70 KB form',
        body: `productId=${mug.id}&quantity=1&pad=${'x'.repeat(70 * 1024)}`,
        status: 413,
      },
      {
        name: 'JSON',
        body: JSON.stringify({ productId: mug.id, quantity: 1 }),
        type: 'application/json',
        status: 415,
      },
      {
        name: 'multipart',
        body: `--b\r\nContent-Disposition: form-data; name="productId"\r\n\r\n${mug.id}\r\n--b--\r\n`,
        type: 'multipart/form-data; boundary=b',
        status: 415,
      },
      { name: 'text', body: `productId=${mug.id}`, type: 'text/plain', status: 415 },
      { name: 'xml', body: '<a/>', type: 'application/xml', status: 415 },
    ];
    for (const route of ROUTES.filter((r) => r.startsWith('POST'))) {
      if (route === 'POST /account/sign-out') continue;
      const path = pathOf(route.slice(5), defaultParam(route));
      for (const { name, body, type, status } of bodies) {
        const res = await send('POST', `${shop}${path}`, { cookie: shopperCookie, body, type });
        expectPage(res, `${route} with ${name}`);
        if (status) expect(res.statusCode, `${route} with ${name}`).toBe(status);
        // The shop's own words, not the JSON API's ("must be application/json", "1 MiB").
        if (status === 415) expect(res.body).toContain('reads its own forms');
        if (status === 413) expect(res.body).toContain('far larger than any');
        else expect(res.statusCode, `${route} with ${name}`).toBeGreaterThanOrEqual(400);
      }
    }
    expect(await footprint()).toEqual(before);
  });

  it('refuses empty, broken and wrongly typed form fields (4xx page) and changes nothing', async () => {
    const before = await footprint();
    const forms: [string, string][] = [
      ['/cart/items', ''],
      ['/cart/items', '%zz=%E0%A4%A&&==&productId'],
      ['/cart/items', `productId=${mug.id}&quantity=-1`],
      ['/cart/items', `productId=${mug.id}&quantity=0`],
      ['/cart/items', `productId=${mug.id}&quantity=1e20`],
      ['/cart/items', `productId=${mug.id}&quantity=1.5`],
      ['/cart/items', `productId=${mug.id}&quantity=abc`],
      ['/cart/items', `productId=${mug.id}&quantity=99999999999999999999`],
      ['/cart/items', `productId=${mug.id}&quantity=`],
      ['/cart/items', 'productId=not-a-uuid&quantity=1'],
      ['/cart/items', `productId=${'f'.repeat(10 * 1024)}&quantity=1`],
      ['/cart/items', 'productId=00000000-0000-0000-0000-000000000000&quantity=1'],
      ['/cart/items', `productId=${otherCartId}&quantity=1`],
      ['/cart/items', `productId=${mug.id}&variantId=not-a-uuid&quantity=1`],
      ['/cart/items', `productId=${mug.id}&quantity=6`],
      ['/cart/items', `productId=%00&quantity=1`],
      ['/cart/coupon', ''],
      ['/cart/coupon', `code=${'C'.repeat(10 * 1024)}`],
      ['/cart/coupon', 'code=%00%01%02'],
      ['/checkout/details', ''],
      ['/checkout/details', `email=${'e'.repeat(10 * 1024)}@example.com&firstName=A&lastName=B`],
      ['/checkout/details', 'email=a@b.co&country=ZZ&firstName=A&lastName=B&line1=x&city=y&postalCode=1'],
      ['/checkout', ''],
      ['/checkout', 'paymentMethod=bitcoin'],
      ['/checkout', `paymentMethod=${'m'.repeat(10 * 1024)}`],
      ['/account/sign-in', ''],
      ['/account/sign-in', `email=${'e'.repeat(10 * 1024)}@example.com`],
      ['/account/sign-in', 'email=not-an-email'],
      ['/account/verify', `email=a@example.com&code=${'1'.repeat(10 * 1024)}`],
      ['/account/verify', 'email=a@example.com&code=abcdef'],
      ['/account/addresses', ''],
      ['/account/addresses', `line1=${'l'.repeat(10 * 1024)}&city=c&postalCode=1&country=GB`],
      ['/account/addresses', 'line1=l&city=c&postalCode=1&country=%00%00'],
      ['/account/profile', `firstName=${'f'.repeat(10 * 1024)}`],
      ['/account/wishlist', ''],
      ['/account/wishlist', 'productId=not-a-uuid'],
      ['/account/wishlist', `productId=${'p'.repeat(10 * 1024)}`],
    ];
    for (const [path, body] of forms)
      for (const cookie of [undefined, shopperCookie]) {
        const res = await send('POST', `${shop}${path}`, { cookie, body });
        expectPage(res, `${path} ${body.slice(0, 60)}`);
        // Signed out, the account's forms send the shopper to the sign-in page instead.
        if (res.statusCode !== 303 || cookie)
          expect(res.statusCode, `${path} ${body.slice(0, 60)}`).toBeGreaterThanOrEqual(400);
      }
    expect(await footprint()).toEqual(before);
  });
});
