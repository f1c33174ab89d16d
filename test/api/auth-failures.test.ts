import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_FAILURES_PER_WINDOW } from '../../src/platform/http/auth-failures.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * Wrong API keys and wrong customer Bearer tokens are counted per client address: past the limit a
 * wrong credential is answered 429, while valid keys (even from that address) keep their own limit.
 */
let app: TestApp;
let store: Awaited<ReturnType<typeof createStoreWithKey>>;
let address = 0;
const nextAddress = () => `10.77.${Math.floor(++address / 250)}.${address % 250}`;

beforeAll(async () => {
  app = await buildTestApp();
  store = await createStoreWithKey(app, { scopes: ['customers:read'] });
});
afterAll(() => app.close());

const wrongKey = () => `sk_${randomBytes(32).toString('base64url')}`;
const merchantGet = (key: string | undefined, ip: string) =>
  app.server.inject({
    method: 'GET',
    url: '/api/v1/customers',
    headers: key === undefined ? {} : { 'x-api-key': key },
    remoteAddress: ip,
  });

describe('failed authentication is throttled per client address', () => {
  it(`answers 429 after ${AUTH_FAILURES_PER_WINDOW} wrong API keys, in a burst too; valid keys are untouched`, async () => {
    const ip = nextAddress();
    const burst = await Promise.all(
      Array.from({ length: AUTH_FAILURES_PER_WINDOW + 10 }, () => merchantGet(wrongKey(), ip)),
    );
    const statuses = burst.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(AUTH_FAILURES_PER_WINDOW);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    const limited = burst.find((r) => r.statusCode === 429);
    expect(limited?.json()).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
    expect(Number(limited?.headers['retry-after'])).toBeGreaterThan(0);

    // The valid key from the same address: served, with its own full budget.
    const valid = await merchantGet(store.key, ip);
    expect(valid.statusCode).toBe(200);
    expect(Number(valid.headers['x-ratelimit-remaining'])).toBe(app.config.rateLimitPerMinute - 1);
    // Another address with a wrong key is not limited by the first one's failures.
    expect((await merchantGet(wrongKey(), nextAddress())).statusCode).toBe(401);
  });

  it('does not count a missing key (nothing was guessed)', async () => {
    const ip = nextAddress();
    for (let i = 0; i < AUTH_FAILURES_PER_WINDOW + 5; i++) {
      expect((await merchantGet(undefined, ip)).statusCode).toBe(401);
    }
  });

  it('throttles wrong customer Bearer tokens the same way', async () => {
    const ip = nextAddress();
    const statuses = await Promise.all(
      Array.from({ length: AUTH_FAILURES_PER_WINDOW + 3 }, () =>
        app.server
          .inject({
            method: 'GET',
            url: '/api/customer/me',
            headers: { authorization: `Bearer cs_${randomBytes(32).toString('base64url')}` },
            remoteAddress: ip,
          })
          .then((r) => r.statusCode),
      ),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(AUTH_FAILURES_PER_WINDOW);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
  });
});
