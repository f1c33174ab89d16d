import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MemoryRateLimitStore } from '../../src/platform/http/rate-limit.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createStoreWithKey } from '../helpers/factories.js';

type Response = Awaited<ReturnType<TestApp['server']['inject']>>;

/**
 * Windows are aligned to the wall-clock minute, so a counting sequence that straddles a minute
 * boundary would see its count reset half-way. Start such a sequence only with time to spare.
 */
async function waitForRoomInWindow(neededMs = 5_000) {
  const leftMs = 60_000 - (Date.now() % 60_000);
  if (leftMs < neededMs) await sleep(leftMs + 100);
}

const list = (target: TestApp, key: string) =>
  target.server.inject({ method: 'GET', url: '/api/v1/customers', headers: { 'x-api-key': key } });

const remainingOf = (res: Response) => Number(res.headers['x-ratelimit-remaining']);

function expectRateLimited(res: Response) {
  expect(res.statusCode).toBe(429);
  expect(res.json()).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
}

describe('a limit of 5 per minute', () => {
  let app: TestApp;
  let storeId: string;
  beforeAll(async () => {
    app = await buildTestApp({ config: { rateLimitPerMinute: 5 } });
    storeId = (await createStoreWithKey(app)).store.id;
  });
  afterAll(() => app.close());

  const newKey = async (scopes: string[] = ['customers:read']) =>
    (await app.services.stores.createApiKey(storeId, { scopes })).key;

  it('counts down Remaining, then answers 429 rate_limited with Retry-After', async () => {
    const key = await newKey();
    await waitForRoomInWindow();
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await list(app, key);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(Number.isInteger(reset)).toBe(true);
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
      // Whole seconds until the minute ends.
      expect(Math.abs(reset - Math.ceil((60_000 - (Date.now() % 60_000)) / 1000))).toBeLessThanOrEqual(1);
      remaining.push(remainingOf(res));
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);

    const sixth = await list(app, key);
    expectRateLimited(sixth);
    expect(sixth.headers['x-ratelimit-limit']).toBe('5');
    expect(sixth.headers['x-request-id']).toBeDefined();
    expectRateLimited(await list(app, key));
  });

  it('gives each key a budget of its own', async () => {
    const [first, second] = [await newKey(), await newKey()];
    await waitForRoomInWindow();
    for (let i = 0; i < 5; i++) expect((await list(app, first)).statusCode).toBe(200);
    expectRateLimited(await list(app, first));

    const res = await list(app, second);
    expect(res.statusCode).toBe(200);
    expect(remainingOf(res)).toBe(4);
  });

  it('does not count 401 responses', async () => {
    const key = await newKey();
    await waitForRoomInWindow();
    for (let i = 0; i < 8; i++) {
      const headers = i % 2 ? { 'x-api-key': `${key}x` } : {};
      const res = await app.server.inject({ method: 'GET', url: '/api/v1/customers', headers });
      expect(res.statusCode).toBe(401);
    }
    const res = await list(app, key);
    expect(res.statusCode).toBe(200);
    expect(remainingOf(res)).toBe(4);
  });
});

describe('403 responses are not counted', () => {
  // Two instances sharing one counter store: the first only ever refuses the key (403); the second
  // first meets the key after it gained the scope, and must find its whole budget left.
  const store = new MemoryRateLimitStore();
  let refusing: TestApp;
  let accepting: TestApp;
  beforeAll(async () => {
    refusing = await buildTestApp({ config: { rateLimitPerMinute: 5 }, rateLimitStore: store });
    accepting = await buildTestApp({
      config: { rateLimitPerMinute: 5 },
      rateLimitStore: store,
      testDatabase: refusing.testDatabase,
    });
  });
  afterAll(async () => {
    await accepting?.close();
    await refusing?.close();
  });

  it('leaves the full budget after several 403s', async () => {
    const { keyId, key } = await createStoreWithKey(refusing, { scopes: ['products:read'] });
    await waitForRoomInWindow();
    for (let i = 0; i < 8; i++) {
      const res = await list(refusing, key);
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
    }
    await refusing.database.db
      .updateTable('api_keys')
      .set({ scopes: ['products:read', 'customers:read'] })
      .where('id', '=', keyId)
      .execute();

    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await list(accepting, key);
      expect(res.statusCode).toBe(200);
      remaining.push(remainingOf(res));
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    expectRateLimited(await list(accepting, key));
  });
});

describe('the default limit of 100 per minute', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(() => app.close());

  it('answers the 101st request with 429', async () => {
    const { key } = await createStoreWithKey(app, { scopes: ['customers:read'] });
    await waitForRoomInWindow(15_000);
    for (let i = 1; i <= 100; i++) {
      const res = await list(app, key);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('100');
      expect(remainingOf(res)).toBe(100 - i);
    }
    expectRateLimited(await list(app, key));
  });
});

describe.runIf(inject('redisUrl'))('counters in Redis, shared by two processes', () => {
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    first = await buildTestApp({ config: { rateLimitPerMinute: 5 }, redis: true });
    second = await buildTestApp({
      config: { rateLimitPerMinute: 5 },
      redis: true,
      testDatabase: first.testDatabase,
    });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('hits the limit after 5 requests in total, alternating between the instances', async () => {
    const { key } = await createStoreWithKey(first, { scopes: ['customers:read'] });
    await waitForRoomInWindow();
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await list(i % 2 ? second : first, key);
      expect(res.statusCode).toBe(200);
      remaining.push(remainingOf(res));
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    expectRateLimited(await list(second, key));
    expectRateLimited(await list(first, key));
  });

  it('keeps separate budgets for separate keys', async () => {
    const a = await createStoreWithKey(first, { scopes: ['customers:read'] });
    const b = await createStoreWithKey(second, { scopes: ['customers:read'] });
    await waitForRoomInWindow();
    for (let i = 0; i < 5; i++) expect((await list(i % 2 ? second : first, a.key)).statusCode).toBe(200);
    expectRateLimited(await list(first, a.key));
    const res = await list(first, b.key);
    expect(res.statusCode).toBe(200);
    expect(remainingOf(res)).toBe(4);
  });
});
