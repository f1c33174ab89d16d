import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/platform/http/scopes.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * Contract §14: every /api/v1 operation × {owner, staff with the scope, staff without it, a key with
 * it, a key without it}, read from the OpenAPI document, so a new route is covered without editing
 * this test. "Allowed" is anything but 401/403 (dummy ids answer 404, empty bodies 400); "refused" is
 * 403 `forbidden`. Owner-only operations (x-owner-only) refuse staff whatever their permissions.
 */
const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'correct horse battery';

interface Operation {
  method: string;
  path: string;
  scope: string | undefined;
  ownerOnly: boolean;
  operationId: string;
}

let app: TestApp;
let storeId: string;
let ownerCookie: string;
let staffCookie: string;
let staffId: string;
const keys = new Map<string, { with: string; without: string }>();
let operations: Operation[];

async function signIn(email: string) {
  const res = await app.server.inject({
    method: 'POST',
    url: '/api/admin/auth/login',
    payload: { email, password: PASSWORD },
  });
  expect(res.statusCode, res.body).toBe(200);
  return String(res.headers['set-cookie']).split(';')[0] as string;
}

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN } });
  const { store } = await createStoreWithKey(app);
  storeId = store.id;
  const owner = `owner.${randomUUID()}@example.com`;
  const staff = `staff.${randomUUID()}@example.com`;
  await app.services.team.createMember({
    email: owner,
    password: PASSWORD,
    storeSlug: store.slug,
    role: 'owner',
    permissions: [],
  });
  staffId = (
    await app.services.team.createMember({
      email: staff,
      password: PASSWORD,
      storeSlug: store.slug,
      role: 'staff',
      permissions: [],
    })
  ).id;
  [ownerCookie, staffCookie] = await Promise.all([signIn(owner), signIn(staff)]);
  for (const scope of SCOPES) {
    const others = SCOPES.filter((s) => s !== scope);
    const [withKey, withoutKey] = await Promise.all([
      app.services.stores.createApiKey(storeId, { scopes: [scope] }),
      app.services.stores.createApiKey(storeId, { scopes: others }),
    ]);
    keys.set(scope, { with: withKey.key, without: withoutKey.key });
  }
  const document = (await app.server.inject({ method: 'GET', url: '/openapi.json' })).json();
  operations = Object.entries(
    document.paths as Record<string, Record<string, Record<string, unknown>>>,
  ).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        scope: op['x-required-scope'] as string | undefined,
        ownerOnly: op['x-owner-only'] === true,
        operationId: String(op.operationId),
      })),
  );
}, 120_000);
afterAll(() => app?.close());

/** Dummy ids in the path: a random UUID for each parameter (404 counts as let through). */
const urlOf = (op: Operation) => op.path.replace(/\{[^}]+\}/g, () => randomUUID());

function call(op: Operation, auth: { cookie: string } | { key: string }) {
  const write = op.method !== 'GET';
  const headers: Record<string, string> =
    'key' in auth ? { 'x-api-key': auth.key } : { cookie: auth.cookie, ...(write ? { origin: ORIGIN } : {}) };
  return app.server.inject({
    method: op.method as 'GET',
    url: urlOf(op),
    headers,
    ...(write && op.method !== 'DELETE' ? { payload: {} } : {}),
  });
}

async function setStaffPermissions(permissions: string[]) {
  const res = await app.server.inject({
    method: 'PATCH',
    url: `/api/admin/staff/${staffId}`,
    headers: { cookie: ownerCookie, origin: ORIGIN },
    payload: { permissions },
  });
  expect(res.statusCode, res.body).toBe(200);
}

const allowed = (status: number) => status !== 401 && status !== 403;

describe('the permission matrix of /api/v1', () => {
  it('covers every scoped operation of the document', () => {
    const scoped = operations.filter((op) => op.path.startsWith('/api/v1/') && op.scope);
    expect(scoped.length).toBeGreaterThan(50);
    // Every scope a route names is one of the catalogue's (the matrix below walks the catalogue).
    for (const op of scoped) expect(SCOPES).toContain(op.scope);
    // Owner-only operations say so and declare the 403 they answer.
    expect(operations.filter((op) => op.ownerOnly).map((op) => op.operationId)).toEqual(
      expect.arrayContaining([
        'connectStripe',
        'disconnectStripe',
        'createApiKey',
        'listStaff',
        'inviteStaff',
      ]),
    );
  });

  it.each(SCOPES.map((scope) => [scope]))(
    '%s: owner and holders of the scope pass, others get 403',
    async (scope) => {
      const ops = operations.filter((op) => op.path.startsWith('/api/v1/') && op.scope === scope);
      const key = keys.get(scope);
      if (!key) throw new Error(`no key for ${scope}`);
      const outcome: string[] = [];
      const check = (who: string, op: Operation, status: number, expectAllowed: boolean) => {
        if (allowed(status) !== expectAllowed)
          outcome.push(
            `${who} ${op.method} ${op.path}: ${status} (expected ${expectAllowed ? 'allowed' : '403'})`,
          );
        if (!expectAllowed && status !== 403)
          outcome.push(`${who} ${op.method} ${op.path}: ${status}, not 403`);
      };
      // Staff with exactly this scope.
      await setStaffPermissions([scope]);
      for (const op of ops) {
        check('owner', op, (await call(op, { cookie: ownerCookie })).statusCode, true);
        check('staff with', op, (await call(op, { cookie: staffCookie })).statusCode, !op.ownerOnly);
        check('key with', op, (await call(op, { key: key.with })).statusCode, true);
        check('key without', op, (await call(op, { key: key.without })).statusCode, false);
      }
      // Staff with every other scope.
      await setStaffPermissions(SCOPES.filter((s) => s !== scope));
      for (const op of ops) {
        check('staff without', op, (await call(op, { cookie: staffCookie })).statusCode, false);
      }
      expect(outcome).toEqual([]);
    },
    120_000,
  );

  it('owner-only /api/admin operations refuse staff with every permission, not the owner', async () => {
    await setStaffPermissions([...SCOPES]);
    const ops = operations.filter((op) => op.path.startsWith('/api/admin/') && op.ownerOnly);
    expect(ops.length).toBeGreaterThanOrEqual(6);
    const wrong: string[] = [];
    for (const op of ops) {
      // Never the real staff member: the owner removing them would end the test's session.
      const staff = await call(op, { cookie: staffCookie });
      if (staff.statusCode !== 403 || staff.json().error.code !== 'forbidden')
        wrong.push(`staff ${op.method} ${op.path}: ${staff.statusCode}`);
      const owner = await call(op, { cookie: ownerCookie });
      if (!allowed(owner.statusCode)) wrong.push(`owner ${op.method} ${op.path}: ${owner.statusCode}`);
    }
    expect(wrong).toEqual([]);
  }, 60_000);
});
