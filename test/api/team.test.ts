import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'correct horse battery';

let app: TestApp;
let smtp: SmtpCatcher;
let storeA: { id: string; slug: string };
let storeB: { id: string; slug: string };
let ownerCookie: string;
let productB: string;
let ipCounter = 0;

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
/** Each call from its own address: the sign-in limits per address stay out of the way. */
function request(method: Method, url: string, cookie?: string, payload?: unknown) {
  ipCounter += 1;
  return app.server.inject({
    method,
    url,
    remoteAddress: `10.9.${Math.floor(ipCounter / 250)}.${ipCounter % 250}`,
    headers: { ...(cookie ? { cookie } : {}), ...(method === 'GET' ? {} : { origin: ORIGIN }) },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}
const cookieOf = (res: { headers: Record<string, unknown> }) =>
  String(res.headers['set-cookie']).split(';')[0] as string;

async function signIn(email: string, store?: string) {
  const res = await request('POST', '/api/admin/auth/login', undefined, { email, password: PASSWORD, store });
  expect(res.statusCode, res.body).toBe(200);
  return cookieOf(res);
}

async function member(email: string, store: string, role: 'owner' | 'staff', permissions: string[] = []) {
  return app.services.team.createMember({ email, password: PASSWORD, storeSlug: store, role, permissions });
}

/** Invites `email` as the owner of A and returns the token from the e-mailed link. */
async function invite(email: string, permissions: string[]) {
  const res = await request('POST', '/api/admin/staff/invitations', ownerCookie, { email, permissions });
  expect(res.statusCode, res.body).toBe(201);
  const mail = await smtp.waitFor((m) => m.envelope.to.includes(email.toLowerCase()));
  const token = /\/admin\/invite\/([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
  expect(mail.html).toContain(`/admin/invite/${token}`);
  expect(mail.subject).toBe('Join the team of Store A');
  return { token: token as string, invitation: res.json().data };
}

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  app = await buildTestApp({ config: { ...UNLIMITED, smtpUrl: smtp.url, publicUrl: ORIGIN } });
  storeA = await app.services.stores.createStore({ slug: `a-${randomUUID().slice(0, 8)}`, name: 'Store A' });
  const b = await createStoreWithKey(app);
  storeB = b.store;
  const owner = `owner.${randomUUID()}@example.com`;
  await member(owner, storeA.slug, 'owner');
  ownerCookie = await signIn(owner);
  const product = await app.server.inject({
    method: 'POST',
    url: '/api/v1/products',
    headers: { 'x-api-key': b.key },
    payload: { name: 'B only', price: '5.00' },
  });
  expect(product.statusCode, product.body).toBe(201);
  productB = product.json().data.id;
}, 120_000);
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

describe('members', () => {
  it('lists members; an owner has every scope; sign-in and me tell the role and permissions', async () => {
    const email = `staff.${randomUUID()}@example.com`;
    await member(email, storeA.slug, 'staff', ['orders:read', 'products:read']);
    const list = await request('GET', '/api/admin/staff', ownerCookie);
    expect(list.statusCode).toBe(200);
    const [owner, staff] = list.json().data;
    expect(owner.role).toBe('owner');
    expect(owner.permissions).toContain('settings:write');
    expect(staff).toMatchObject({
      email,
      role: 'staff',
      permissions: ['orders:read', 'products:read'],
      name: null,
    });
    const cookie = await signIn(email);
    const me = (await request('GET', '/api/admin/me', cookie)).json().data;
    expect(me).toMatchObject({ role: 'staff', permissions: ['orders:read', 'products:read'] });
    expect(me.stores).toEqual([{ id: storeA.id, slug: storeA.slug, name: 'Store A', role: 'staff' }]);
    // Staff do not manage staff or keys, and are told so.
    const refused = await request('GET', '/api/admin/staff', cookie);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('forbidden');
    expect((await request('GET', '/api/admin/api-keys', cookie)).statusCode).toBe(403);
  });

  it('a permission change and a removal take effect on the next request; removal ends the sessions', async () => {
    const email = `staff.${randomUUID()}@example.com`;
    const { id } = await member(email, storeA.slug, 'staff', ['orders:read']);
    const cookie = await signIn(email);
    expect((await request('GET', '/api/v1/orders', cookie)).statusCode).toBe(200);
    const patched = await request('PATCH', `/api/admin/staff/${id}`, ownerCookie, {
      permissions: ['products:read'],
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data.permissions).toEqual(['products:read']);
    expect((await request('GET', '/api/v1/orders', cookie)).statusCode).toBe(403);
    expect((await request('GET', '/api/v1/products', cookie)).statusCode).toBe(200);
    expect((await request('DELETE', `/api/admin/staff/${id}`, ownerCookie)).statusCode).toBe(204);
    expect((await request('GET', '/api/v1/products', cookie)).statusCode).toBe(401);
    expect((await request('GET', '/api/admin/me', cookie)).statusCode).toBe(401);
    const sessions = await app.database.db
      .selectFrom('admin_sessions')
      .select('id')
      .where('admin_user_id', '=', id)
      .execute();
    expect(sessions).toEqual([]);
    // Gone from the list; again is 404; an owner's permissions are not set; the last owner stays.
    expect(
      (await request('GET', '/api/admin/staff', ownerCookie))
        .json()
        .data.map((m: { email: string }) => m.email),
    ).not.toContain(email);
    expect((await request('DELETE', `/api/admin/staff/${id}`, ownerCookie)).statusCode).toBe(404);
    const me = (await request('GET', '/api/admin/me', ownerCookie)).json().data;
    expect(
      (await request('PATCH', `/api/admin/staff/${me.user.id}`, ownerCookie, { permissions: [] })).statusCode,
    ).toBe(409);
    expect((await request('DELETE', `/api/admin/staff/${me.user.id}`, ownerCookie)).statusCode).toBe(409);
  });
});

describe('tenancy', () => {
  it('a staff member of A never reaches B, also after switching; an operator cookie is no admin session', async () => {
    const email = `both.${randomUUID()}@example.com`;
    await member(email, storeA.slug, 'staff', ['products:read', 'products:write']);
    await member(email, storeB.slug, 'staff', ['orders:read']);
    const cookieA = await signIn(email, storeA.slug);
    expect((await request('GET', `/api/v1/products/${productB}`, cookieA)).statusCode).toBe(404);
    expect((await request('PATCH', `/api/v1/products/${productB}`, cookieA, { name: 'x' })).statusCode).toBe(
      404,
    );
    expect((await request('DELETE', `/api/v1/products/${productB}`, cookieA)).statusCode).toBe(404);
    const listA = (await request('GET', '/api/v1/products', cookieA)).json().data;
    expect(listA.map((p: { id: string }) => p.id)).not.toContain(productB);

    const switched = await request('POST', '/api/admin/auth/switch', cookieA, { store: storeB.slug });
    expect(switched.statusCode, switched.body).toBe(200);
    expect(switched.json().data).toMatchObject({
      store: { id: storeB.id },
      role: 'staff',
      permissions: ['orders:read'],
    });
    const cookieB = cookieOf(switched);
    expect(cookieB).not.toBe(cookieA);
    // The old session ended; the new one has B's permissions only.
    expect((await request('GET', '/api/admin/me', cookieA)).statusCode).toBe(401);
    expect((await request('GET', '/api/v1/products', cookieB)).statusCode).toBe(403);
    expect((await request('GET', '/api/v1/orders', cookieB)).statusCode).toBe(200);
    // A store the user does not belong to; a cross-site switch.
    const other = await createStoreWithKey(app);
    expect(
      (await request('POST', '/api/admin/auth/switch', cookieB, { store: other.store.slug })).statusCode,
    ).toBe(403);
    const crossSite = await app.server.inject({
      method: 'POST',
      url: '/api/admin/auth/switch',
      headers: { cookie: cookieB, origin: 'https://evil.example' },
      payload: { store: storeA.slug },
    });
    expect(crossSite.statusCode).toBe(403);

    const operator = `emporium_operator=os_${randomUUID()}`;
    expect((await request('GET', '/api/admin/me', operator)).statusCode).toBe(401);
    expect((await request('GET', '/api/v1/products', operator)).statusCode).toBe(401);
  });
});

describe('invitations', () => {
  it('a new user accepts once: name and password set, signed in as staff with the permissions', async () => {
    const email = `New.${randomUUID()}@Example.com`;
    const { token, invitation } = await invite(email, ['orders:read', 'orders:read', 'customers:read']);
    expect(invitation).toMatchObject({
      email: email.toLowerCase(),
      permissions: ['orders:read', 'customers:read'],
    });
    expect(JSON.stringify(invitation)).not.toContain(token);
    expect(new Date(invitation.expires_at).getTime() - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    const pending = (await request('GET', '/api/admin/staff/invitations', ownerCookie)).json().data;
    expect(pending.map((i: { id: string }) => i.id)).toContain(invitation.id);

    const preview = await request('GET', `/api/admin/invitations/${token}`);
    expect(preview.json().data).toEqual({
      store: { name: 'Store A', slug: storeA.slug },
      email: email.toLowerCase(),
      existing_user: false,
    });
    expect(
      (
        await request('POST', `/api/admin/invitations/${token}/accept`, undefined, {
          name: 'Ann',
          password: 'short',
        })
      ).statusCode,
    ).toBe(400);
    const accepted = await request('POST', `/api/admin/invitations/${token}/accept`, undefined, {
      name: 'Ann Lee',
      password: PASSWORD,
    });
    expect(accepted.statusCode, accepted.body).toBe(201);
    expect(String(accepted.headers['set-cookie'])).toMatch(
      /^emporium_admin=as_[^;]+; Path=\/; HttpOnly; SameSite=Strict/,
    );
    expect(accepted.json().data).toMatchObject({
      user: { email: email.toLowerCase(), name: 'Ann Lee' },
      store: { id: storeA.id },
      role: 'staff',
      permissions: ['orders:read', 'customers:read'],
    });
    const cookie = cookieOf(accepted);
    expect((await request('GET', '/api/v1/orders', cookie)).statusCode).toBe(200);
    expect((await request('GET', '/api/v1/products', cookie)).statusCode).toBe(403);
    // Single use, and no longer pending.
    expect((await request('GET', `/api/admin/invitations/${token}`)).statusCode).toBe(404);
    expect(
      (
        await request('POST', `/api/admin/invitations/${token}/accept`, undefined, {
          name: 'Eve',
          password: PASSWORD,
        })
      ).statusCode,
    ).toBe(404);
    const after = (await request('GET', '/api/admin/staff/invitations', ownerCookie)).json().data;
    expect(after.map((i: { id: string }) => i.id)).not.toContain(invitation.id);
    // Already a member now: inviting the address again is 409.
    expect(
      (await request('POST', '/api/admin/staff/invitations', ownerCookie, { email, permissions: [] }))
        .statusCode,
    ).toBe(409);
  });

  it('an existing user signs in with their own password to accept (wrong: 401)', async () => {
    const email = `owner.b.${randomUUID()}@example.com`;
    await member(email, storeB.slug, 'owner');
    const { token } = await invite(email, ['products:read']);
    expect((await request('GET', `/api/admin/invitations/${token}`)).json().data.existing_user).toBe(true);
    const wrong = await request('POST', `/api/admin/invitations/${token}/accept`, undefined, {
      name: '',
      password: 'not the password',
    });
    expect(wrong.statusCode).toBe(401);
    const ok = await request('POST', `/api/admin/invitations/${token}/accept`, undefined, {
      name: '',
      password: PASSWORD,
    });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(
      ok
        .json()
        .data.stores.map((s: { slug: string; role: string }) => [s.slug, s.role])
        .sort(),
    ).toEqual(
      [
        [storeA.slug, 'staff'],
        [storeB.slug, 'owner'],
      ].sort(),
    );
  });

  it('expired and revoked links are 404; revoking twice is 404; another store cannot revoke', async () => {
    const expired = await invite(`late.${randomUUID()}@example.com`, []);
    await app.database.db
      .updateTable('staff_invitations')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', expired.invitation.id)
      .execute();
    expect((await request('GET', `/api/admin/invitations/${expired.token}`)).statusCode).toBe(404);
    expect(
      (
        await request('POST', `/api/admin/invitations/${expired.token}/accept`, undefined, {
          name: 'L',
          password: PASSWORD,
        })
      ).statusCode,
    ).toBe(404);

    const revoked = await invite(`gone.${randomUUID()}@example.com`, []);
    const ownerB = `owner.b2.${randomUUID()}@example.com`;
    await member(ownerB, storeB.slug, 'owner');
    const cookieB = await signIn(ownerB);
    expect(
      (await request('DELETE', `/api/admin/staff/invitations/${revoked.invitation.id}`, cookieB)).statusCode,
    ).toBe(404);
    expect(
      (await request('DELETE', `/api/admin/staff/invitations/${revoked.invitation.id}`, ownerCookie))
        .statusCode,
    ).toBe(204);
    expect(
      (await request('DELETE', `/api/admin/staff/invitations/${revoked.invitation.id}`, ownerCookie))
        .statusCode,
    ).toBe(404);
    expect((await request('GET', `/api/admin/invitations/${revoked.token}`)).statusCode).toBe(404);
  });

  it('hostile input is a 4xx envelope, never a 5xx', async () => {
    const bodies: unknown[] = [
      {},
      { email: 'not-an-email', permissions: [] },
      { email: 'a@example.com', permissions: ['root'] },
      { email: 'a@example.com', permissions: 'all' },
      { email: `${'a'.repeat(300)}@example.com`, permissions: [] },
      { email: 42, permissions: [] },
      { email: 'a@example.com', permissions: [], role: 'owner' },
      { email: 'a@example.com', permissions: Array(100).fill('orders:read') },
    ];
    for (const body of bodies) {
      const res = await request('POST', '/api/admin/staff/invitations', ownerCookie, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    const bad = [
      await request('PATCH', '/api/admin/staff/not-a-uuid', ownerCookie, { permissions: [] }),
      await request('PATCH', `/api/admin/staff/${randomUUID()}`, ownerCookie, { permissions: [] }),
      await request('DELETE', `/api/admin/staff/${'x'.repeat(90)}`, ownerCookie),
      await request('DELETE', '/api/admin/staff/invitations/nope', ownerCookie),
      await request('GET', `/api/admin/invitations/${'t'.repeat(100)}`),
      await request('POST', `/api/admin/invitations/${randomUUID()}/accept`, undefined, {
        name: 'A',
        password: PASSWORD,
      }),
    ];
    expect(bad.map((r) => r.statusCode)).toEqual([404, 404, 404, 404, 404, 404]);
    const invalid = [
      await request('PATCH', `/api/admin/staff/${randomUUID()}`, ownerCookie, { permissions: ['x'] }),
      await request('GET', `/api/admin/invitations/${'t'.repeat(5000)}`),
      await request('POST', `/api/admin/invitations/abc/accept`, undefined, {
        name: 'n'.repeat(5000),
        password: PASSWORD,
      }),
      await request('POST', `/api/admin/invitations/abc/accept`, undefined, {
        name: ['a'],
        password: PASSWORD,
      }),
      await request('POST', `/api/admin/invitations/abc/accept`, undefined, { password: PASSWORD }),
      await request('POST', '/api/admin/auth/switch', ownerCookie, { store: 7 }),
    ];
    // A path parameter past the router's length matches no route: 404, as anywhere else.
    expect(invalid.map((r) => r.statusCode)).toEqual([400, 404, 400, 400, 400, 400]);
    // A cross-site accept is refused before anything else (login CSRF).
    const cross = await app.server.inject({
      method: 'POST',
      url: `/api/admin/invitations/${randomUUID()}/accept`,
      headers: { origin: 'https://evil.example' },
      payload: { name: 'A', password: PASSWORD },
    });
    expect(cross.statusCode).toBe(403);
  });

  it('a burst of invitations holds the limit of 50 per store per hour', async () => {
    const owner = `owner.c.${randomUUID()}@example.com`;
    const store = await createStoreWithKey(app);
    await member(owner, store.store.slug, 'owner');
    const cookie = await signIn(owner);
    const codes = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        request('POST', '/api/admin/staff/invitations', cookie, {
          email: `burst${i}.${randomUUID()}@example.com`,
          permissions: [],
        }).then((r) => r.statusCode),
      ),
    );
    expect(codes.filter((c) => c === 201)).toHaveLength(50);
    expect(codes.filter((c) => c === 429)).toHaveLength(10);
  }, 60_000);
});
