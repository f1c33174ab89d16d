import { expect } from 'vitest';
import type { TestApp } from './app.js';
import type { SmtpCatcher } from './smtp-catcher.js';

const ORIGIN = 'http://localhost:3000';

/**
 * A shopper of the web shop over HTTP (app.server.inject): GETs with a cookie, form POSTs from the
 * shop's origin (or another one), and the one-time-code sign-in through the pages with the code read
 * from the real SMTP capture. Each sign-in speaks from its own client IP, so per-IP limits of one
 * test do not leak into another.
 */
export function shopAccountClient(app: TestApp, smtp: SmtpCatcher) {
  let ipCounter = 0;
  let emailCounter = 0;
  const nextIp = () => `10.1.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
  const uniqueEmail = (tag: string) => `${tag}.${Date.now()}.${++emailCounter}@example.com`;

  const get = (url: string, cookie?: string) =>
    app.server.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });

  function post(
    url: string,
    fields: Record<string, string>,
    options: { cookie?: string; origin?: string | null; ip?: string } = {},
  ) {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (options.origin !== null) headers.origin = options.origin ?? ORIGIN;
    if (options.cookie) headers.cookie = options.cookie;
    return app.server.inject({
      method: 'POST',
      url,
      headers,
      payload: new URLSearchParams(fields).toString(),
      remoteAddress: options.ip ?? '10.9.9.9',
    });
  }

  /** Asks for a code through the sign-in page of `shop` and reads it from the e-mail that arrives. */
  async function requestCode(shop: string, email: string, ip = nextIp()) {
    const before = smtp.messages.length;
    const res = await post(`${shop}/account/sign-in`, { email }, { ip });
    expect(res.statusCode, res.body).toBe(303);
    await smtp.waitFor((m) => smtp.messages.indexOf(m) >= before && (m.to ?? '').includes(email));
    const mail = smtp.messages.filter((m) => (m.to ?? '').includes(email)).at(-1);
    const code = mail?.text.match(/\b(\d{6})\b/)?.[1];
    if (!code) throw new Error('no code in the mail');
    return { code, res };
  }

  /** Signs in through the pages of `shop`; the session cookie as a Cookie header. */
  async function signIn(shop: string, email = uniqueEmail('shopper')) {
    const ip = nextIp();
    const { code } = await requestCode(shop, email, ip);
    const res = await post(`${shop}/account/verify`, { email, code }, { ip });
    expect(res.statusCode, res.body).toBe(303);
    const cookie = String(res.headers['set-cookie']).split(';')[0] as string;
    return { email, cookie, res };
  }

  return { get, post, requestCode, signIn, nextIp, uniqueEmail };
}
export type Shopper = ReturnType<typeof shopAccountClient>;
