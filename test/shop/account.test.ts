import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type Shopper, shopAccountClient } from '../helpers/shop-account.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/** The shop's one-time-code sign-in over HTTP, with the code read from a real SMTP capture. */
let app: TestApp;
let smtp: SmtpCatcher;
let shop: string;
let get: Shopper['get'];
let post: Shopper['post'];
let nextIp: Shopper['nextIp'];
let uniqueEmail: Shopper['uniqueEmail'];
let requestCode: (email: string, base?: string, ip?: string) => ReturnType<Shopper['requestCode']>;
let signIn: (email?: string, base?: string) => ReturnType<Shopper['signIn']>;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  app = await buildTestApp({
    config: { ...UNLIMITED, smtpUrl: smtp.url, publicUrl: 'http://localhost:3000' },
  });
  const store = await createStoreWithKey(app);
  shop = `/shop/${store.store.slug}`;
  const shopper = shopAccountClient(app, smtp);
  ({ get, post, nextIp, uniqueEmail } = shopper);
  requestCode = (email, base = shop, ip) => shopper.requestCode(base, email, ip);
  signIn = (email, base = shop) => shopper.signIn(base, email);
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

describe('one-time-code sign-in pages', () => {
  it('signed out, the account redirects to the sign-in page, which asks for an e-mail', async () => {
    const account = await get(`${shop}/account`);
    expect(account.statusCode).toBe(303);
    expect(account.headers.location).toBe(`${shop}/account/sign-in?return=%2Faccount`);
    const page = await get(`${shop}/account/sign-in`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('private, no-store');
    expect(page.body).toContain('<meta name="robots" content="noindex"/>');
    expect(page.body).toMatch(/<input id="sign-in-email" type="email" autoComplete="email" required=""/);
    expect(page.body).toContain(`action="${shop}/account/sign-in"`);
  });

  it('mails a code, shows the code form, and a right code sets the session cookie and opens the account', async () => {
    const email = uniqueEmail('ada');
    const ip = nextIp();
    const { code, res } = await requestCode(email, shop, ip);
    expect(res.headers.location).toBe(`${shop}/account/verify?email=${encodeURIComponent(email)}`);
    const form = await get(res.headers.location as string);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain(email);
    expect(form.body).toMatch(/inputMode="numeric" autoComplete="one-time-code" pattern="\[0-9\]\{6\}"/);

    const wrong = await post(
      `${shop}/account/verify`,
      { email, code: code === '000000' ? '111111' : '000000' },
      { ip },
    );
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('role="alert"');
    expect(wrong.body).toContain('The code is invalid or has expired');
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const short = await post(`${shop}/account/verify`, { email, code: '12' }, { ip });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('Enter the 6 digits');

    const ok = await post(`${shop}/account/verify`, { email, code }, { ip });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe(`${shop}/account`);
    const cookie = String(ok.headers['set-cookie']);
    expect(cookie).toMatch(/^emporium_session=cs_[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const account = await get(`${shop}/account`, cookie.split(';')[0]);
    expect(account.statusCode).toBe(200);
    expect(account.headers['cache-control']).toBe('private, no-store');
    expect(account.body).toContain(`Signed in as ${email}`);
    expect(account.body).toContain('You have not placed an order yet.');
    // The same cookie is a session of the customer API.
    const me = await app.server.inject({
      method: 'GET',
      url: '/api/customer/me',
      headers: { cookie: cookie.split(';')[0] },
    });
    expect(me.json().data.email).toBe(email);
  });

  it('answers alike for any address, refuses a malformed one, and holds the limits of the service', async () => {
    const ip = nextIp();
    const email = uniqueEmail('throttle');
    const bad = await post(`${shop}/account/sign-in`, { email: 'not-an-address' }, { ip });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Enter a valid e-mail address');
    for (let i = 0; i < 5; i++)
      expect((await post(`${shop}/account/sign-in`, { email }, { ip })).statusCode).toBe(303);
    const limited = await post(`${shop}/account/sign-in`, { email }, { ip });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('900');
    expect(limited.body).toContain('Too many attempts. Please wait 15 minutes and try again.');
  });

  it('"Send a new code" mails another code, says so, and the newest code signs in', async () => {
    const email = uniqueEmail('again');
    const ip = nextIp();
    await requestCode(email, shop, ip);
    const before = smtp.messages.length;
    const again = await post(`${shop}/account/sign-in`, { email, again: '1' }, { ip });
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(`${shop}/account/verify?email=${encodeURIComponent(email)}&again=1`);
    expect((await get(again.headers.location as string)).body).toContain('A new code is on its way');
    const mail = await smtp.waitFor(
      (m) => smtp.messages.indexOf(m) >= before && (m.to ?? '').includes(email),
    );
    const code = mail.text.match(/\b(\d{6})\b/)?.[1] as string;
    expect((await post(`${shop}/account/verify`, { email, code }, { ip })).statusCode).toBe(303);
  });

  it('five wrong codes kill the code, and the page says to request a new one', async () => {
    const email = uniqueEmail('locked');
    const ip = nextIp();
    const { code } = await requestCode(email, shop, ip);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 4; i++)
      expect((await post(`${shop}/account/verify`, { email, code: wrong }, { ip })).statusCode).toBe(401);
    const fifth = await post(`${shop}/account/verify`, { email, code: wrong }, { ip });
    expect(fifth.body).toContain('Too many wrong codes: request a new one');
    const late = await post(`${shop}/account/verify`, { email, code }, { ip });
    expect(late.statusCode).toBe(401);
    expect(late.headers['set-cookie']).toBeUndefined();
  });

  it('goes back to a path inside the shop after signing in, and never to another site', async () => {
    const email = uniqueEmail('return');
    const ip = nextIp();
    const first = await requestCode(email, shop, ip);
    const back = await post(
      `${shop}/account/verify`,
      { email, code: first.code, return: '/products/blue-mug?x=1' },
      { ip },
    );
    expect(back.headers.location).toBe(`${shop}/products/blue-mug?x=1`);
    for (const evil of [
      '//evil.example/x',
      'https://evil.example/',
      '/\\evil.example',
      ' /x',
      'evil.example',
      '/x\n/y',
    ]) {
      const email = uniqueEmail('return');
      const { code } = await requestCode(email, shop, ip);
      const res = await post(`${shop}/account/verify`, { email, code, return: evil }, { ip });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location, evil).toBe(`${shop}/account`);
    }
    // The sign-in page does not carry a refused return path along either.
    const page = await get(`${shop}/account/sign-in?return=${encodeURIComponent('//evil.example')}`);
    expect(page.body).not.toContain('evil.example');
    const kept = await get(`${shop}/account/sign-in?return=${encodeURIComponent('/account/wishlist')}`);
    expect(kept.body).toContain('name="return" value="/account/wishlist"');
  });

  it('refuses a form from another origin (or from none) with 403', async () => {
    const { cookie } = await signIn();
    for (const origin of ['https://evil.example', null]) {
      expect(
        (await post(`${shop}/account/sign-in`, { email: uniqueEmail('x') }, { origin })).statusCode,
      ).toBe(403);
      const res = await post(`${shop}/account/profile`, { firstName: 'Mallory' }, { cookie, origin });
      expect(res.statusCode).toBe(403);
      expect((await post(`${shop}/account/sign-out`, {}, { cookie, origin })).statusCode).toBe(403);
    }
    expect((await get(`${shop}/account`, cookie)).body).not.toContain('Mallory');
  });

  it('treats a session of another store as signed out', async () => {
    const other = await createStoreWithKey(app);
    const { cookie } = await signIn(uniqueEmail('elsewhere'), `/shop/${other.store.slug}`);
    expect((await get(`/shop/${other.store.slug}/account`, cookie)).statusCode).toBe(200);
    const here = await get(`${shop}/account`, cookie);
    expect(here.statusCode).toBe(303);
    expect(here.headers.location).toContain('/account/sign-in');
    // Signing out here does not end the other store's session.
    await post(`${shop}/account/sign-out`, {}, { cookie });
    expect((await get(`/shop/${other.store.slug}/account`, cookie)).statusCode).toBe(200);
  });

  it('signs out: the session ends, the cookie is cleared, and the shop home follows', async () => {
    const { cookie } = await signIn();
    const res = await post(`${shop}/account/sign-out`, {}, { cookie });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${shop}/`);
    expect(String(res.headers['set-cookie'])).toMatch(/^emporium_session=; .*Max-Age=0/);
    // The old cookie is dead: the page treats it as signed out (and clears it).
    const after = await get(`${shop}/account`, cookie);
    expect(after.statusCode).toBe(303);
    const me = await app.server.inject({ method: 'GET', url: '/api/customer/me', headers: { cookie } });
    expect(me.statusCode).toBe(401);
  });

  it('marks the session cookie Secure when the shop is served over https', async () => {
    const secure = await buildTestApp({
      config: { ...UNLIMITED, smtpUrl: smtp.url, publicUrl: 'https://shop.example' },
    });
    try {
      const store = await createStoreWithKey(secure);
      const base = `/shop/${store.store.slug}`;
      const httpsShopper = shopAccountClient(secure, smtp);
      const origin = 'https://shop.example';
      const email = uniqueEmail('secure');
      const before = smtp.messages.length;
      const sent = await httpsShopper.post(`${base}/account/sign-in`, { email }, { origin, ip: nextIp() });
      expect(sent.statusCode).toBe(303);
      const mail = await smtp.waitFor(
        (m) => smtp.messages.indexOf(m) >= before && (m.to ?? '').includes(email),
      );
      const code = mail.text.match(/\b(\d{6})\b/)?.[1] as string;
      const res = await httpsShopper.post(
        `${base}/account/verify`,
        { email, code },
        { origin, ip: nextIp() },
      );
      expect(res.statusCode).toBe(303);
      expect(String(res.headers['set-cookie'])).toMatch(/^emporium_session=cs_[^;]+; .*Secure/);
    } finally {
      await secure.close();
    }
  });

  it("on a store's own domain: links without /shop/{slug}, and `return` still cannot leave the site", async () => {
    const domain = `account-${Date.now()}.example.com`;
    const store = await createStoreWithKey(app);
    await app.services.stores.updateSettings(store.store.id, { custom_domain: domain });
    const origin = `https://${domain}`;
    const form = (url: string, fields: Record<string, string>, ip: string) =>
      app.server.inject({
        method: 'POST',
        url,
        headers: { host: domain, origin, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(fields).toString(),
        remoteAddress: ip,
      });
    const page = await app.server.inject({
      method: 'GET',
      url: '/account/sign-in',
      headers: { host: domain },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('action="/account/sign-in"');
    for (const [back, expected] of [
      ['//evil.example/', '/account'],
      ['/products/lamp', '/products/lamp'],
    ] as const) {
      const email = uniqueEmail('domain');
      const ip = nextIp();
      const before = smtp.messages.length;
      const sent = await form('/account/sign-in', { email, return: back }, ip);
      expect(sent.statusCode, sent.body).toBe(303);
      expect(sent.headers.location).toMatch(/^\/account\/verify\?/);
      const mail = await smtp.waitFor(
        (m) => smtp.messages.indexOf(m) >= before && (m.to ?? '').includes(email),
      );
      const code = mail.text.match(/\b(\d{6})\b/)?.[1] as string;
      const res = await form('/account/verify', { email, code, return: back }, ip);
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(expected);
    }
  });
});
