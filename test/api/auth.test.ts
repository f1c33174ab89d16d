import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createCustomers, createStoreWithKey } from '../helpers/factories.js';

let app: TestApp;
let storeA: Awaited<ReturnType<typeof createStoreWithKey>>;
let storeB: Awaited<ReturnType<typeof createStoreWithKey>>;
let customerOfA: string;

beforeAll(async () => {
  app = await buildTestApp();
  storeA = await createStoreWithKey(app, { scopes: ['customers:read'] });
  storeB = await createStoreWithKey(app, { scopes: ['customers:read'] });
  const [customer] = await createCustomers(app, storeA.store.id, 1);
  customerOfA = customer?.id ?? '';
});
afterAll(() => app.close());

// Each request from an address of its own: this file sends far more wrong keys than one address may
// (auth-failures.test.ts covers that limit).
let address = 0;
const get = (url: string, key?: string, target: TestApp = app) =>
  target.server.inject({
    method: 'GET',
    url,
    headers: key === undefined ? {} : { 'x-api-key': key },
    remoteAddress: `10.66.${Math.floor(++address / 250) % 250}.${address % 250}`,
  });

/** A key of the right shape that was never issued. */
const unissuedKey = () => `sk_${randomBytes(32).toString('base64url')}`;

const newKey = async (storeId: string, scopes: string[] | 'all') =>
  app.services.stores.createApiKey(storeId, { scopes });

function expectUnauthorized(res: Awaited<ReturnType<typeof get>>) {
  expect(res.statusCode).toBe(401);
  expect(res.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
}

describe('401 unauthorized', () => {
  it('for a missing key', async () => {
    const res = await get('/api/v1/customers');
    expectUnauthorized(res);
    expect(res.json().error.message).toMatch(/missing/i);
  });

  // Functions, because the real key exists only once beforeAll has run.
  it.each([
    ['an empty key', () => ''],
    ['garbage', () => 'hello'],
    ['a well-formed key that was never issued', unissuedKey],
    [
      'a real key with its last character changed',
      () => `${storeA.key.slice(0, -1)}${storeA.key.endsWith('A') ? 'B' : 'A'}`,
    ],
    ['a real key with a character added', () => `${storeA.key}x`],
  ])('for %s', async (_case, keyOf) => {
    const key = keyOf();
    expectUnauthorized(await get('/api/v1/customers', key));
    expectUnauthorized(await get(`/api/v1/customers/${customerOfA}`, key));
  });

  it('for a revoked key, at once in the process that revoked it', async () => {
    const key = await newKey(storeA.store.id, ['customers:read']);
    // Used first, so the lookup is cached: the revocation must evict it.
    expect((await get('/api/v1/customers', key.key)).statusCode).toBe(200);
    await app.services.stores.revokeApiKey(storeA.store.id, key.id);
    expectUnauthorized(await get('/api/v1/customers', key.key));
  });

  // A lookup already in flight when the key is revoked must not put it back in the cache.
  it('for a key revoked while a request using it is in flight', async () => {
    let stillAccepted = 0;
    for (let i = 0; i < 100; i++) {
      const key = await newKey(storeA.store.id, ['customers:read']);
      await Promise.all([
        get('/api/v1/customers', key.key),
        app.services.stores.revokeApiKey(storeA.store.id, key.id),
      ]);
      if ((await get('/api/v1/customers', key.key)).statusCode !== 401) stillAccepted++;
    }
    expect(stillAccepted).toBe(0);
  });

  it('for a key revoked by another process, within the ~5 s cache lifetime', async () => {
    const other = await buildTestApp({ testDatabase: app.testDatabase });
    try {
      const key = await newKey(storeA.store.id, ['customers:read']);
      expect((await get('/api/v1/customers', key.key)).statusCode).toBe(200);
      await other.services.stores.revokeApiKey(storeA.store.id, key.id);
      const revokedAt = Date.now();
      expectUnauthorized(await get('/api/v1/customers', key.key, other));

      let status = 200;
      while (status === 200 && Date.now() - revokedAt < 6_000) {
        status = (await get('/api/v1/customers', key.key)).statusCode;
        if (status === 200) await sleep(200);
      }
      expect(status).toBe(401);
      expect(Date.now() - revokedAt).toBeLessThan(6_000);
    } finally {
      await other.close();
    }
  });

  it('for a key of a disabled store', async () => {
    const { store, key } = await createStoreWithKey(app, { scopes: ['customers:read'] });
    await app.database.db
      .updateTable('stores')
      .set({ status: 'disabled' })
      .where('id', '=', store.id)
      .execute();
    expectUnauthorized(await get('/api/v1/customers', key));
  });
});

describe('403 forbidden: the scope matrix', () => {
  it.each([
    [['products:read'], 403],
    [['orders:read', 'orders:write', 'products:write', 'storefront:read', 'customer:read'], 403],
    [['customers:read'], 200],
    [['products:read', 'customers:read'], 200],
    ['all', 200],
  ] as const)('a key with %j gets %i on both customer routes', async (scopes, status) => {
    const { key } = await newKey(storeA.store.id, scopes === 'all' ? 'all' : [...scopes]);
    for (const url of ['/api/v1/customers', `/api/v1/customers/${customerOfA}`]) {
      const res = await get(url, key);
      expect(res.statusCode).toBe(status);
      if (status === 403) {
        expect(res.json()).toEqual({
          error: { code: 'forbidden', message: 'This API key lacks the customers:read scope' },
        });
      }
    }
  });

  it('decides 401 before 403: a garbage key on a scoped route is 401', async () => {
    expectUnauthorized(await get('/api/v1/customers', unissuedKey()));
  });
});

describe('tenancy', () => {
  it("answers 404 when store B's key asks for store A's customer", async () => {
    const res = await get(`/api/v1/customers/${customerOfA}`, storeB.key);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'not_found', message: 'customer not found' } });
    expect((await get(`/api/v1/customers/${customerOfA}`, storeA.key)).statusCode).toBe(200);
  });
});

describe('API keys', () => {
  it('records last_used_at once a key is used', async () => {
    const key = await newKey(storeB.store.id, ['customers:read']);
    const lastUsed = async () =>
      (await app.services.stores.listApiKeys(storeB.store.id)).find((k) => k.id === key.id)?.last_used_at;
    expect(await lastUsed()).toBeNull();

    const before = Date.now();
    expect((await get('/api/v1/customers', key.key)).statusCode).toBe(200);
    // Written after the response, off the request path: poll briefly.
    let used = await lastUsed();
    for (let i = 0; i < 50 && !used; i++) {
      await sleep(50);
      used = await lastUsed();
    }
    expect(used).toBeInstanceOf(Date);
    expect(used?.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(used?.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('are sk_ plus at least 32 random bytes, each one different', async () => {
    const keys = await Promise.all(Array.from({ length: 5 }, () => newKey(storeB.store.id, 'all')));
    for (const { key } of keys) {
      expect(key).toMatch(/^sk_[A-Za-z0-9_-]+$/);
      expect(key.length).toBeGreaterThanOrEqual(43);
      expect(Buffer.from(key.slice(3), 'base64url').length).toBeGreaterThanOrEqual(32);
    }
    expect(new Set(keys.map((k) => k.key)).size).toBe(keys.length);
  });

  it('are stored only as a hash: no column holds the key', async () => {
    const { key, id } = await newKey(storeB.store.id, ['customers:read']);
    const row = await app.database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const secret = key.slice(3);
    for (const value of Object.values(row)) {
      const forms =
        value instanceof Buffer
          ? [
              value.toString('hex'),
              value.toString('base64'),
              value.toString('base64url'),
              value.toString('latin1'),
            ]
          : [JSON.stringify(value) ?? ''];
      for (const form of forms) {
        expect(form).not.toContain(key);
        expect(form).not.toContain(secret);
      }
    }
    expect(row.key_hash).toEqual(createHash('sha256').update(key).digest());
    expect(key.startsWith(row.key_prefix)).toBe(true);
    expect(row.key_prefix.length).toBeLessThanOrEqual(12);
  });
});
