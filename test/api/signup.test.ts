import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type FakeStripe, startFakeStripe, stripeKeys } from '../helpers/fake-stripe.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

let app: TestApp;
let smtp: SmtpCatcher;
let fakeStripe: FakeStripe;
const ORIGIN = 'http://localhost:3000';
let ipCounter = 0;
/** Each test speaks from its own client IP, so one test's per-IP counts do not reach another. */
const nextIp = () => `10.1.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
let unique = 0;
const newEmail = (tag: string) => `${tag}.${Date.now()}.${++unique}@example.com`;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  fakeStripe = await startFakeStripe();
  app = await buildTestApp({
    config: {
      ...UNLIMITED,
      smtpUrl: smtp.url,
      publicUrl: ORIGIN,
      signup: 'open',
      stripe: { apiBase: fakeStripe.url, timeoutMs: 2000 },
    },
  });
});
afterAll(async () => {
  await app.close();
  await smtp.close();
  await fakeStripe.close();
});

const post = (url: string, payload: unknown, ip = nextIp(), headers: Record<string, string> = {}) =>
  app.server.inject({ method: 'POST', url, payload: payload as object, headers, remoteAddress: ip });

const signupBody = (email: string, extra: Record<string, unknown> = {}) => ({
  email,
  password: 'correct horse battery',
  store_name: "Bob's Shop",
  ...extra,
});

/** POST /api/admin/signup, then the message the SMTP server received for the address. */
async function requestSignup(body: Record<string, unknown>, ip = nextIp()) {
  const email = String(body.email).toLowerCase();
  const res = await post('/api/admin/signup', body, ip);
  expect(res.statusCode, res.body).toBe(202);
  expect(res.json()).toEqual({ data: { sent: true } });
  const mail = await smtp.waitFor((m) => (m.to ?? '').includes(email));
  return { res, mail, code: mail.text.match(/\b(\d{6})\b/)?.[1] };
}

async function signUp(body: Record<string, unknown>) {
  const { code } = await requestSignup(body);
  const res = await post('/api/admin/signup/verify', { email: body.email, code });
  expect(res.statusCode, res.body).toBe(201);
  return res;
}

const cookieOf = (res: { headers: Record<string, unknown> }) =>
  String(res.headers['set-cookie']).split(';')[0] as string;

describe('self-service sign-up', () => {
  it('says whether it is open', async () => {
    const res = await app.server.inject({ method: 'GET', url: '/api/admin/signup' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { open: true } });
  });

  it('mails a code; the code creates the store (slug from the name), its owner, and signs in', async () => {
    const email = newEmail('Owner').replace('Owner', 'OWNER');
    const { mail, code } = await requestSignup(
      signupBody(email, { currency: 'eur', timezone: 'Europe/Paris' }),
    );
    expect(code).toMatch(/^\d{6}$/);
    expect(mail.subject).toContain(code);
    expect(mail.html).toContain(code);
    expect(mail.text).not.toContain('correct horse');
    const stored = await app.database.db
      .selectFrom('signup_requests')
      .selectAll()
      .where('email', '=', email.toLowerCase())
      .executeTakeFirstOrThrow();
    expect(stored.code_hash.toString('hex')).not.toContain(Buffer.from(code ?? '').toString('hex'));
    expect(stored.password_hash).toMatch(/^\$scrypt\$|^scrypt/);

    const res = await post('/api/admin/signup/verify', { email: email.toLowerCase(), code }, nextIp(), {
      origin: ORIGIN,
    });
    expect(res.statusCode, res.body).toBe(201);
    const store = res.json().data.store;
    expect(store).toMatchObject({ slug: expect.stringMatching(/^bobs-shop(-\d+)?$/), name: "Bob's Shop" });
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^emporium_admin=as_[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);

    const me = await app.server.inject({
      method: 'GET',
      url: '/api/admin/me',
      headers: { cookie: cookieOf(res) },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json().data).toMatchObject({ user: { email: email.toLowerCase() }, store: { id: store.id } });
    const row = await app.database.db
      .selectFrom('stores')
      .select(['currency', 'timezone'])
      .where('id', '=', store.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ currency: 'EUR', timezone: 'Europe/Paris' });
    const membership = await app.database.db
      .selectFrom('admin_user_stores')
      .select('role')
      .where('store_id', '=', store.id)
      .execute();
    expect(membership).toEqual([{ role: 'owner' }]);
    // The request is used up, and the owner signs in with the password given at sign-up.
    expect((await post('/api/admin/signup/verify', { email, code })).statusCode).toBe(401);
    const login = await post('/api/admin/auth/login', { email, password: 'correct horse battery' });
    expect(login.statusCode, login.body).toBe(200);
  });

  it('gives slugs bobs-shop, bobs-shop-2, bobs-shop-3 to three stores of one name, also at once', async () => {
    const name = `Ünïque Store ${unique++}`;
    const base = `unique-store-${unique - 1}`;
    const emails = [newEmail('a'), newEmail('b'), newEmail('c')];
    const codes: (string | undefined)[] = [];
    for (const email of emails)
      codes.push((await requestSignup(signupBody(email, { store_name: name }))).code);
    const results = await Promise.all(
      emails.map((email, i) => post('/api/admin/signup/verify', { email, code: codes[i] })),
    );
    expect(results.map((r) => r.statusCode)).toEqual([201, 201, 201]);
    expect(results.map((r) => r.json().data.store.slug).sort()).toEqual([base, `${base}-2`, `${base}-3`]);
    // Defaults: USD, UTC.
    const rows = await app.database.db
      .selectFrom('stores')
      .select(['currency', 'timezone'])
      .where('slug', '=', base)
      .execute();
    expect(rows).toEqual([{ currency: 'USD', timezone: 'UTC' }]);
  });

  it('answers a registered e-mail the same, mails no code, creates nothing', async () => {
    const { store } = await createStoreWithKey(app);
    const email = newEmail('taken');
    await app.services.stores.createAdminUser({
      email,
      password: 'existing-password',
      storeSlug: store.slug,
    });
    const before = await app.database.db.selectFrom('stores').select('id').execute();
    const { res, mail } = await requestSignup(signupBody(email.toUpperCase()));
    expect(res.body).toBe(JSON.stringify({ data: { sent: true } }));
    expect(mail.subject).toMatch(/already have/);
    expect(mail.text).not.toMatch(/\b\d{6}\b/);
    expect(
      await app.database.db.selectFrom('signup_requests').selectAll().where('email', '=', email).execute(),
    ).toEqual([]);
    for (const code of ['000000', '123456'])
      expect((await post('/api/admin/signup/verify', { email, code })).statusCode).toBe(401);
    expect(await app.database.db.selectFrom('stores').select('id').execute()).toHaveLength(before.length);
  });

  it('a wrong code is 401; five wrong tries kill the code (429), even the right one after', async () => {
    const email = newEmail('tries');
    const { code } = await requestSignup(signupBody(email));
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const res = await post('/api/admin/signup/verify', { email, code: wrong });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('unauthorized');
    }
    const late = await post('/api/admin/signup/verify', { email, code });
    expect(late.statusCode).toBe(429);
    expect(late.json().error.code).toBe('rate_limited');
    // Signing up again mails a fresh code that works.
    smtp.messages.length = 0;
    const again = await requestSignup(signupBody(email));
    expect((await post('/api/admin/signup/verify', { email, code: again.code })).statusCode).toBe(201);
  });

  it('an expired code is refused', async () => {
    const email = newEmail('expired');
    const { code } = await requestSignup(signupBody(email));
    await app.database.db
      .updateTable('signup_requests')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('email', '=', email)
      .execute();
    expect((await post('/api/admin/signup/verify', { email, code })).statusCode).toBe(401);
  });

  it('refuses a foreign Origin on both steps (403)', async () => {
    const email = newEmail('csrf');
    const evil = { origin: 'https://evil.example' };
    const res = await post('/api/admin/signup', signupBody(email), nextIp(), evil);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('forbidden');
    const verify = await post('/api/admin/signup/verify', { email, code: '123456' }, nextIp(), evil);
    expect(verify.statusCode).toBe(403);
    expect(
      (await post('/api/admin/signup', signupBody(email), nextIp(), { origin: ORIGIN })).statusCode,
    ).toBe(202);
  });

  it('refuses bad and hostile input with 400, never 5xx', async () => {
    const email = newEmail('bad');
    const cases: unknown[] = [
      {},
      { email },
      signupBody('not-an-email'),
      signupBody(email, { password: 'short' }),
      signupBody(email, { password: 'x'.repeat(1001) }),
      signupBody(email, { store_name: '' }),
      signupBody(email, { store_name: '   ' }),
      signupBody(email, { store_name: 'x'.repeat(101) }),
      signupBody(email, { currency: 'XYZ' }),
      signupBody(email, { currency: 'EURO' }),
      signupBody(email, { timezone: 'Mars/Olympus' }),
      signupBody(email, { role: 'operator' }),
      signupBody(email, { email: ['a@b.c'] }),
      signupBody(`${'a'.repeat(250)}@example.com`),
      signupBody(email, { store_name: { $ne: null } }),
      signupBody(email, { password: 'pass\u0000word-long' }),
    ];
    for (const body of cases) {
      const res = await post('/api/admin/signup', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    for (const body of [
      { email, code: '12345' },
      { email, code: 'abcdef' },
      { email },
      { email, code: '1234567' },
    ]) {
      expect((await post('/api/admin/signup/verify', body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    // A hostile store name is kept as text and makes a plain slug.
    const name = '<script>alert(1)</script> & Co';
    const { code } = await requestSignup(signupBody(email, { store_name: name }));
    const res = await post('/api/admin/signup/verify', { email, code });
    expect(res.json().data.store).toMatchObject({
      name,
      slug: expect.stringMatching(/^script-alert-1-script-co(-\d+)?$/),
    });
  });
});

describe('sign-up limits under bursts', () => {
  it('per e-mail: of 30 simultaneous requests from 30 addresses, exactly 5 pass', async () => {
    const email = newEmail('burst');
    const statuses = await Promise.all(
      Array.from({ length: 30 }, () =>
        post('/api/admin/signup', signupBody(email)).then((r) => r.statusCode),
      ),
    );
    expect(statuses.filter((s) => s === 202)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(25);
  }, 120_000);

  const newEmailOnce = newEmail('ip-one');
  it('per client address: 30 in 15 minutes, also in a burst (exactly the rest of the 30 pass)', async () => {
    const ip = nextIp();
    // 25 requests for one e-mail: 5 pass its own limit, and all 25 count for the address.
    const first = await Promise.all(
      Array.from({ length: 25 }, () =>
        post('/api/admin/signup', signupBody(newEmailOnce), ip).then((r) => r.statusCode),
      ),
    );
    expect(first.filter((s) => s === 202)).toHaveLength(5);
    const statuses = await Promise.all(
      Array.from({ length: 30 }, () =>
        post('/api/admin/signup', signupBody(newEmail('ip')), ip).then((r) => r.statusCode),
      ),
    );
    expect(statuses.filter((s) => s === 202)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(25);
    const refused = await post('/api/admin/signup', signupBody(newEmail('ip')), ip);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
  }, 180_000);

  it('verifications per client address: 60 in 15 minutes, even in a burst', async () => {
    const ip = nextIp();
    const statuses = await Promise.all(
      Array.from({ length: 70 }, (_, i) =>
        post('/api/admin/signup/verify', { email: newEmail(`v${i}`), code: '123456' }, ip).then(
          (r) => r.statusCode,
        ),
      ),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });
});

describe('the onboarding checklist', () => {
  it('ticks each item off as the store does it', async () => {
    const res = await signUp(signupBody(newEmail('onboard'), { store_name: 'Checklist Shop' }));
    const cookie = cookieOf(res);
    const as = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
      app.server.inject({
        method,
        url,
        headers: { cookie, origin: ORIGIN },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const checklist = async () => {
      const r = await as('GET', '/api/admin/onboarding');
      expect(r.statusCode, r.body).toBe(200);
      return r.json().data as { items: { key: string; done: boolean }[]; done: boolean };
    };
    const doneKeys = async () => (await checklist()).items.filter((i) => i.done).map((i) => i.key);
    expect(await checklist()).toEqual({
      items: [
        { key: 'add_product', done: false },
        { key: 'set_up_shipping', done: false },
        { key: 'connect_payments', done: false },
        { key: 'view_shop', done: false },
      ],
      done: false,
    });
    const product = await as('POST', '/api/v1/products', { name: 'Mug', price: '12.00' });
    expect(product.statusCode, product.body).toBe(201);
    expect(await doneKeys()).toEqual(['add_product']);
    const zone = await as('POST', '/api/v1/shipping-zones', {
      name: 'Home',
      countries: ['US'],
      rates: [{ name: 'Standard', price: '5.00' }],
    });
    expect(zone.statusCode, zone.body).toBe(201);
    expect(await doneKeys()).toEqual(['add_product', 'set_up_shipping']);
    const stripe = await as('PUT', '/api/v1/payments/stripe', stripeKeys());
    expect(stripe.statusCode, stripe.body).toBe(200);
    expect(await doneKeys()).toEqual(['add_product', 'set_up_shipping', 'connect_payments']);
    const viewed = await as('POST', '/api/admin/onboarding/view-shop');
    expect(viewed.statusCode).toBe(204);
    expect(await checklist()).toMatchObject({ done: true });
    // Another store's checklist is its own.
    const other = await signUp(signupBody(newEmail('other'), { store_name: 'Other Shop' }));
    const theirs = await app.server.inject({
      method: 'GET',
      url: '/api/admin/onboarding',
      headers: { cookie: cookieOf(other) },
    });
    expect(theirs.json().data.items.every((i: { done: boolean }) => !i.done)).toBe(true);
  });

  it('needs a dashboard session (401), and refuses a foreign Origin on view-shop (403)', async () => {
    expect((await app.server.inject({ method: 'GET', url: '/api/admin/onboarding' })).statusCode).toBe(401);
    const { key } = await createStoreWithKey(app);
    const withKey = await app.server.inject({
      method: 'GET',
      url: '/api/admin/onboarding',
      headers: { 'x-api-key': key },
    });
    expect(withKey.statusCode).toBe(401);
    const res = await signUp(signupBody(newEmail('viewer')));
    const evil = await app.server.inject({
      method: 'POST',
      url: '/api/admin/onboarding/view-shop',
      headers: { cookie: cookieOf(res), origin: 'https://evil.example' },
    });
    expect(evil.statusCode).toBe(403);
  });
});
