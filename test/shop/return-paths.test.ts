import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/**
 * Issue 29, item 1: no shop parameter that ends in a redirect (`return` of the sign-in, the code
 * form and the wishlist) may send the shopper to another site, on the platform's address nor on a
 * store's own domain, where links have no `/shop/{slug}` prefix and `//evil.example` is another
 * host. Each value is checked as a browser would follow it: resolved against the page's URL.
 */

const PLATFORM = 'localhost:3000';
const DOMAIN = `returns-${randomBytes(3).toString('hex')}.example.com`;

/** Values that name another site once a browser (or the URL parser) has read them. */
const HOSTILE = [
  '/.//evil.example/x',
  '/%2e//evil.example',
  '/%2E%2E//evil.example',
  '/a/..//evil.example',
  '/a/%2e%2e//evil.example',
  '//evil.example/x',
  '///evil.example',
  '/\\evil.example',
  '/\\/evil.example',
  '\\\\evil.example',
  '/%2f%2fevil.example',
  '%2f%2fevil.example',
  '/%5c%5cevil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n/evil.example',
  '\t//evil.example',
  ' //evil.example',
  'https://evil.example/',
  'https:evil.example',
  'https:/evil.example',
  'javascript:alert(1)',
  'evil.example',
];

let app: TestApp;
let smtp: SmtpCatcher;
let slug: string;
let ipCounter = 0;
let emailCounter = 0;
const nextIp = () => `10.7.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
const uniqueEmail = () => `returns.${Date.now()}.${++emailCounter}@example.com`;

/** Where the shop is on each host: its Host header and the prefix of its links. */
const hosts = () =>
  [
    { name: 'the platform host', host: PLATFORM, base: `/shop/${slug}` },
    { name: 'a custom domain', host: DOMAIN, base: '' },
  ] as const;
type Where = ReturnType<typeof hosts>[number];

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  app = await buildTestApp({
    config: { ...UNLIMITED, smtpUrl: smtp.url, publicUrl: `http://${PLATFORM}` },
  });
  const { store } = await createStoreWithKey(app);
  slug = store.slug;
  await app.services.stores.updateSettings(store.id, { custom_domain: DOMAIN });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

function get(where: Where, path: string, cookie?: string) {
  return app.server.inject({
    method: 'GET',
    url: `${where.base}${path}`,
    headers: { host: where.host, ...(cookie ? { cookie } : {}) },
  });
}

function post(where: Where, path: string, fields: Record<string, string>, ip: string, cookie?: string) {
  return app.server.inject({
    method: 'POST',
    url: `${where.base}${path}`,
    headers: {
      host: where.host,
      origin: `http://${where.host}`,
      'content-type': 'application/x-www-form-urlencoded',
      ...(cookie ? { cookie } : {}),
    },
    payload: new URLSearchParams(fields).toString(),
    remoteAddress: ip,
  });
}

/** Asks for a code on the sign-in page of `where` and reads it from the e-mail. */
async function codeFor(where: Where, email: string, ip: string): Promise<string> {
  const before = smtp.messages.length;
  const sent = await post(where, '/account/sign-in', { email }, ip);
  expect(sent.statusCode, sent.body).toBe(303);
  const mail = await smtp.waitFor((m) => smtp.messages.indexOf(m) >= before && (m.to ?? '').includes(email));
  return mail.text.match(/\b(\d{6})\b/)?.[1] as string;
}

/**
 * Fails unless `target` (a Location, or a return path the shop puts after its own prefix), read by a
 * browser on a page of `where`, stays on that host and inside the shop.
 */
function expectInsideShop(where: Where, target: string, label: string) {
  const page = `http://${where.host}${where.base}/account/sign-in`;
  const url = new URL(target, page);
  expect(url.origin, `${label} → ${target}`).toBe(`http://${where.host}`);
  expect(url.pathname.startsWith(`${where.base}/`), `${label} → ${target}`).toBe(true);
}

/** The `return` a redirect carries in its query, as the next page will use it (after the prefix). */
function expectReturnParamInsideShop(where: Where, location: string, label: string) {
  expectInsideShop(where, location, label);
  const back = new URL(location, 'http://x.invalid').searchParams.get('return');
  if (back !== null) expectInsideShop(where, `${where.base}${back}`, `${label} (return=)`);
}

/** The hidden `return` field of a rendered sign-in or code page, if any. */
function returnFieldOf(html: string): string | undefined {
  const value = html.match(/name="return" value="([^"]*)"/)?.[1];
  return value
    ?.replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'");
}

describe('return paths never leave the shop', () => {
  let cookie: string;

  beforeAll(async () => {
    const ip = nextIp();
    const email = uniqueEmail();
    const where = hosts()[0];
    const code = await codeFor(where, email, ip);
    const res = await post(where, '/account/verify', { email, code }, ip);
    expect(res.statusCode, res.body).toBe(303);
    cookie = String(res.headers['set-cookie']).split(';')[0] as string;
  });

  it('keeps a path inside the shop on both hosts', async () => {
    for (const where of hosts()) {
      const res = await get(
        where,
        `/account/sign-in?return=${encodeURIComponent('/products/lamp?x=1')}`,
        cookie,
      );
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(`${where.base}/products/lamp?x=1`);
    }
  });

  for (const value of HOSTILE) {
    describe(`return=${JSON.stringify(value)}`, () => {
      it('GET /account/sign-in, signed in, redirects inside the shop', async () => {
        for (const where of hosts()) {
          const res = await get(where, `/account/sign-in?return=${encodeURIComponent(value)}`, cookie);
          expect(res.statusCode, where.name).toBe(303);
          expectInsideShop(where, res.headers.location as string, where.name);
        }
      });

      it('GET /account/sign-in and /account/verify, signed out, carry no hostile return field', async () => {
        for (const where of hosts()) {
          for (const path of ['/account/sign-in', `/account/verify?email=a%40example.com`]) {
            const sep = path.includes('?') ? '&' : '?';
            const res = await get(where, `${path}${sep}return=${encodeURIComponent(value)}`);
            expect(res.statusCode, `${where.name} ${path}`).toBe(200);
            const field = returnFieldOf(res.body);
            if (field !== undefined)
              expectInsideShop(where, `${where.base}${field}`, `${where.name} ${path}`);
          }
        }
      });

      it('POST /account/sign-in passes on no hostile return', async () => {
        for (const where of hosts()) {
          const res = await post(
            where,
            '/account/sign-in',
            { email: uniqueEmail(), return: value },
            nextIp(),
          );
          expect(res.statusCode, where.name).toBe(303);
          expectReturnParamInsideShop(where, res.headers.location as string, where.name);
        }
      });

      it('POST /account/verify redirects inside the shop once signed in', async () => {
        for (const where of hosts()) {
          const ip = nextIp();
          const email = uniqueEmail();
          const code = await codeFor(where, email, ip);
          const res = await post(where, '/account/verify', { email, code, return: value }, ip);
          expect(res.statusCode, where.name).toBe(303);
          expect(res.headers['set-cookie'], where.name).toBeDefined();
          expectInsideShop(where, res.headers.location as string, where.name);
        }
      });

      it('POST /account/wishlist, signed out, sends to a sign-in that returns inside the shop', async () => {
        for (const where of hosts()) {
          const res = await post(where, '/account/wishlist', { productId: '', return: value }, nextIp());
          expect(res.statusCode, where.name).toBe(303);
          expectReturnParamInsideShop(where, res.headers.location as string, where.name);
        }
      });
    });
  }
});
