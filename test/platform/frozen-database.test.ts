import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type EmbeddedCluster, openEmbeddedCluster } from '../../src/platform/db/embedded.js';
import { toAppError } from '../../src/platform/http/errors.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { createCustomers, createStoreWithKey } from '../helpers/factories.js';
import { clusterPids } from '../helpers/processes.js';

/**
 * A database that stops answering without closing its connections (a frozen VM, a stalled disk, a
 * paused container; here every process of a test-owned embedded cluster stopped with SIGSTOP).
 * Requests must fail fast with 503 `unavailable`, /readyz within 2 s, and once the database answers
 * again (SIGCONT) the same app must serve requests by itself.
 *
 * The app runs on the database settings of `emporium serve` (openRuntime for request work), pointed
 * at the cluster through DATABASE_URL. Only in the embedded project: the cluster is its own either way.
 */
const embedded = inject('databaseMode') === 'embedded';

interface Timed {
  status: number | 'no answer';
  code?: string;
  ms: number;
}

describe.runIf(embedded)('a frozen database', () => {
  let dataDir: string;
  let cluster: EmbeddedCluster;
  let runtime: Runtime;
  let app: App;
  let key: string;
  let customerId: string;
  let frozen: number[] = [];

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-frozen-'));
    cluster = await openEmbeddedCluster({
      dataDir,
      password: 'frozen-test',
      settings: { fsync: 'off', synchronous_commit: 'off' },
    });
    const config = loadConfig({
      DATABASE_URL: cluster.url,
      APP_SECRET: 'test-app-secret-0123456789abcdef0123',
      RATE_LIMIT_PER_MINUTE: '100000',
      LOG_LEVEL: 'silent',
    });
    const logger = pino({ level: 'silent' });
    runtime = await openRuntime(config, logger, { migrate: true, requestWork: true });
    app = await buildApp({ config, db: runtime.database.db, logger, rateLimitStore: runtime.rateLimitStore });
    const created = await createStoreWithKey(app);
    key = created.key;
    const [customer] = await createCustomers(app, created.store.id, 3);
    customerId = customer?.id ?? '';
  });

  afterAll(async () => {
    for (const pid of frozen) signal(pid, 'SIGCONT');
    await app?.server.close();
    await runtime?.close();
    await cluster?.release();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  function signal(pid: number, sig: NodeJS.Signals) {
    try {
      process.kill(pid, sig);
    } catch {
      // gone
    }
  }

  /** One request, its status and how long it took; 'no answer' after `limitMs`. */
  async function timed(method: 'GET' | 'POST', url: string, body?: object, limitMs = 20_000): Promise<Timed> {
    const startedAt = performance.now();
    const answer = app.server
      .inject({ method, url, headers: { 'x-api-key': key }, ...(body ? { payload: body } : {}) })
      .then((res) => ({
        status: res.statusCode,
        code: res.statusCode >= 400 ? res.json().error?.code : undefined,
      }));
    const timeout = new Promise<{ status: 'no answer' }>((resolve) =>
      setTimeout(() => resolve({ status: 'no answer' }), limitMs).unref(),
    );
    const result = await Promise.race([answer, timeout]);
    return { ...result, ms: Math.round(performance.now() - startedAt) };
  }

  const wave = (tag: string) =>
    Promise.all([
      timed('GET', '/readyz'),
      timed('GET', '/api/v1/customers'),
      timed('GET', `/api/v1/customers/${customerId}`),
      timed('GET', '/api/v1/categories'),
      timed('POST', '/api/v1/categories', { name: `Frozen ${tag}` }),
    ]);

  it('requests answer 503 within seconds while it is frozen, and succeed again once it thaws', async () => {
    const before = await wave('before');
    expect(before.map((r) => r.status)).toEqual([200, 200, 200, 200, 201]);

    frozen = clusterPids(dataDir);
    expect(frozen.length).toBeGreaterThan(1); // the postmaster and its backends
    for (const pid of frozen) signal(pid, 'SIGSTOP');

    // First wave: the requests meet the silence themselves (pooled connections hang on their query).
    const first = await wave('first');
    // Second wave: the app already knows the database is not answering.
    const second = await wave('second');
    console.log(
      `frozen database: first wave ${JSON.stringify(first)}; second wave ${JSON.stringify(second)}`,
    );
    for (const result of [...first, ...second]) {
      expect(result.status).toBe(503);
      expect(result.code).toBe('unavailable');
      expect(result.ms).toBeLessThan(6_000);
    }
    expect(first[0]?.ms).toBeLessThan(2_000); // /readyz
    expect(second[0]?.ms).toBeLessThan(2_000);

    for (const pid of frozen) signal(pid, 'SIGCONT');
    const thawedAt = performance.now();
    let after: Timed[] = [];
    for (let attempt = 0; attempt < 100; attempt++) {
      after = await wave(`after-${attempt}`);
      if (after.every((r) => r.status === 200 || r.status === 201)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    console.log(
      `thawed: every request succeeded again ${Math.round(performance.now() - thawedAt)} ms after SIGCONT`,
    );
    expect(after.map((r) => r.status)).toEqual([200, 200, 200, 200, 201]);
  });

  it('request work has the statement timeout, slow queries under it are not cut; CLI runtimes have none', async () => {
    const config = (extra: Record<string, string>) =>
      loadConfig({
        DATABASE_URL: cluster.url,
        APP_SECRET: 'test-app-secret-0123456789abcdef0123',
        LOG_LEVEL: 'silent',
        ...extra,
      });
    const logger = pino({ level: 'silent' });
    const show = async (db: Runtime['database']['db']) =>
      (await sql<{ statement_timeout: string }>`SHOW statement_timeout`.execute(db)).rows[0]
        ?.statement_timeout;

    // `serve` and `worker` (default 10 s) and `seed` or `migrate` (none).
    expect(await show(runtime.database.db)).toBe('10s');
    const cli = await openRuntime(config({}), logger, { migrate: false, poolSize: 1 });
    try {
      expect(await show(cli.database.db)).toBe('0');
    } finally {
      await cli.close();
    }

    const short = await openRuntime(config({ DATABASE_STATEMENT_TIMEOUT_MS: '4000' }), logger, {
      migrate: false,
      poolSize: 2,
      requestWork: true,
    });
    try {
      // Longer than the stall check (2 s): the server answers the check, so the query runs on.
      let startedAt = performance.now();
      await sql`SELECT pg_sleep(3)`.execute(short.database.db);
      const slowMs = Math.round(performance.now() - startedAt);
      expect(slowMs).toBeGreaterThanOrEqual(3000);
      // Longer than the statement timeout: PostgreSQL cancels it (57014), answered as 503.
      startedAt = performance.now();
      const error = await sql`SELECT pg_sleep(6)`.execute(short.database.db).catch((e: unknown) => e);
      const cutMs = Math.round(performance.now() - startedAt);
      console.log(`a 3 s query completed in ${slowMs} ms; a 6 s query was cancelled after ${cutMs} ms`);
      expect(error).toMatchObject({ code: '57014' });
      expect(cutMs).toBeLessThan(5500);
      expect(toAppError(error)).toMatchObject({ statusCode: 503, code: 'unavailable' });
    } finally {
      await short.close();
    }
  });
});
