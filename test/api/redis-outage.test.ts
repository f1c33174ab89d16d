import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { hasRedisServer, startRedisServer, type TestRedisServer } from '../helpers/redis-server.js';

/**
 * Rate limits with Redis down, on a redis-server of this file's own (the shared one is never
 * touched): hung (SIGSTOP, nothing answers) and killed (connections refused). An outage must cost
 * no latency once detected, and every limit (the merchant API's, the one-time-code and admin
 * sign-in limits) must keep counting; when Redis answers again, counting goes back to it.
 */
const LIMIT = 20;
const MINUTE = 60_000;
const FIFTEEN_MINUTES = 15 * MINUTE;

/** Windows are aligned to the clock: start a counting sequence only with time to spare in it. */
async function waitForRoomInWindow(windowMs: number, neededMs: number) {
  const leftMs = windowMs - (Date.now() % windowMs);
  if (leftMs < neededMs) await sleep(leftMs + 100);
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};

describe.runIf(hasRedisServer)('rate limits while Redis is down', () => {
  let redis: TestRedisServer;
  let inspector: Redis;
  let app: TestApp;
  let storeId: string;
  let slug: string;
  let ipCounter = 0;
  const nextIp = () => `10.77.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

  beforeAll(async () => {
    redis = await startRedisServer();
    inspector = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 }).on('error', () => {});
    app = await buildTestApp({ config: { rateLimitPerMinute: LIMIT }, redis: redis.url });
    const store = await createStoreWithKey(app);
    storeId = store.store.id;
    slug = store.store.slug;
  });
  afterAll(async () => {
    await app?.close();
    inspector?.disconnect();
    await redis?.close();
  });

  const newKey = async () => {
    const created = await app.services.stores.createApiKey(storeId, { scopes: ['customers:read'] });
    return { id: created.id, key: created.key };
  };
  const list = (key: string) =>
    app.server.inject({ method: 'GET', url: '/api/v1/customers', headers: { 'x-api-key': key } });
  /** The count Redis holds for an API key in the current minute (0 when it holds none). */
  const countInRedis = async (keyId: string) => {
    const start = Math.floor(Date.now() / MINUTE) * MINUTE;
    return Number((await inspector.get(`emporium:rl:${keyId}:${start}`)) ?? 0);
  };

  /** `calls` requests one after the other: each one's status and latency in milliseconds. */
  async function burst(calls: number, send: () => ReturnType<typeof list>) {
    const statuses: number[] = [];
    const latencies: number[] = [];
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      const res = await send();
      latencies.push(performance.now() - started);
      statuses.push(res.statusCode);
      expect(res.statusCode, res.body).toBeLessThan(500);
    }
    return { statuses, latencies };
  }

  /** Waits until a request of a fresh key is counted in Redis again (the probe after the cool-down). */
  async function expectCountingInRedisAgain() {
    const deadline = Date.now() + 20_000;
    let counted = 0;
    while (Date.now() < deadline) {
      await waitForRoomInWindow(MINUTE, 2_000);
      const fresh = await newKey();
      expect((await list(fresh.key)).statusCode).toBe(200);
      counted = await countInRedis(fresh.id);
      if (counted === 1) break;
      await sleep(250);
    }
    expect(counted, 'a request counted in Redis once it answers again').toBe(1);
  }

  describe('hung (the process stopped: connections open, nothing answers)', () => {
    let carried: { id: string; key: string };
    beforeAll(async () => {
      await inspector.connect();
      await waitForRoomInWindow(MINUTE, 15_000);
      // Counted in Redis while it answers: 5 of this key's 20.
      carried = await newKey();
      for (let i = 0; i < 5; i++) expect((await list(carried.key)).statusCode).toBe(200);
      expect(await countInRedis(carried.id)).toBe(5);
      redis.pause();
    });
    afterAll(() => redis.resume());

    it('costs at most the first requests a short wait; the per-key limit still answers 429', async () => {
      const { key } = await newKey();
      const { statuses, latencies } = await burst(40, () => list(key));
      const afterFirst = latencies.slice(1);
      const summary = {
        first: Math.round(latencies[0] as number),
        p50: Math.round(percentile(afterFirst, 50)),
        p99: Math.round(percentile(afterFirst, 99)),
      };
      console.info(`merchant calls with Redis hung (ms): ${JSON.stringify(summary)}`);
      // Well under the store's 250 ms Redis timeout (which every call would pay without the
      // breaker) and the former 1 s; loose enough for a busy 2-core machine.
      expect(summary.p50, JSON.stringify(summary)).toBeLessThan(50);
      expect(summary.p99, JSON.stringify(summary)).toBeLessThan(200);
      expect(statuses).toEqual([...Array(LIMIT).fill(200), ...Array(40 - LIMIT).fill(429)]);
    }, 120_000);

    it('goes on from the count Redis last gave for a key', async () => {
      const { statuses } = await burst(LIMIT - 5 + 2, () => list(carried.key));
      expect(statuses).toEqual([...Array(LIMIT - 5).fill(200), 429, 429]);
    }, 120_000);

    it('stops a one-time-code brute force after 60 verifications per IP', async () => {
      await waitForRoomInWindow(FIFTEEN_MINUTES, 15_000);
      const ip = nextIp();
      const { statuses } = await burst(61, () =>
        app.server.inject({
          method: 'POST',
          url: `/api/storefront/${slug}/auth/verify`,
          payload: { email: `victim.${ipCounter}@example.com`, code: '123456' },
          remoteAddress: ip,
        }),
      );
      expect(statuses).toEqual([...Array(60).fill(401), 429]);
    }, 120_000);

    it('limits code requests to 30 per IP', async () => {
      await waitForRoomInWindow(FIFTEEN_MINUTES, 15_000);
      const ip = nextIp();
      let n = 0;
      const { statuses } = await burst(31, () =>
        app.server.inject({
          method: 'POST',
          url: `/api/storefront/${slug}/auth/request-code`,
          payload: { email: `shopper${++n}.${ip}@example.com` },
          remoteAddress: ip,
        }),
      );
      expect(statuses).toEqual([...Array(30).fill(202), 429]);
    }, 120_000);

    it('limits dashboard sign-in to 10 attempts per e-mail', async () => {
      // Each attempt costs a full scrypt (about a second on a busy machine).
      await waitForRoomInWindow(FIFTEEN_MINUTES, 40_000);
      const email = `target.${Date.now()}@example.com`;
      let n = 0;
      const { statuses } = await burst(11, () =>
        app.server.inject({
          method: 'POST',
          url: '/api/admin/auth/login',
          payload: { email, password: 'guess' },
          remoteAddress: `10.78.0.${++n}`,
        }),
      );
      expect(statuses).toEqual([...Array(10).fill(401), 429]);
    }, 120_000);

    it('counts in Redis again once it answers', async () => {
      redis.resume();
      await expectCountingInRedisAgain();
    }, 60_000);
  });

  describe('killed (connections refused), then started again', () => {
    beforeAll(async () => {
      await waitForRoomInWindow(MINUTE, 15_000);
      await redis.kill();
    });

    it('costs no latency after the first request; the per-key limit still answers 429', async () => {
      const { key } = await newKey();
      const { statuses, latencies } = await burst(40, () => list(key));
      const afterFirst = latencies.slice(1);
      const summary = {
        first: Math.round(latencies[0] as number),
        p50: Math.round(percentile(afterFirst, 50)),
        p99: Math.round(percentile(afterFirst, 99)),
      };
      console.info(`merchant calls with Redis killed (ms): ${JSON.stringify(summary)}`);
      // Well under the store's 250 ms Redis timeout (which every call would pay without the
      // breaker) and the former 1 s; loose enough for a busy 2-core machine.
      expect(summary.p50, JSON.stringify(summary)).toBeLessThan(50);
      expect(summary.p99, JSON.stringify(summary)).toBeLessThan(200);
      expect(statuses).toEqual([...Array(LIMIT).fill(200), ...Array(40 - LIMIT).fill(429)]);
    }, 120_000);

    it('counts in Redis again once it is back', async () => {
      await redis.start();
      await expectCountingInRedisAgain();
    }, 60_000);
  });
});
