import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { MemoryRateLimitStore } from '../../src/platform/http/rate-limit.js';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { benchServerFor, persistentDatabase } from '../lib/database.js';
import { listenOnFreePort } from '../lib/http.js';
import { metric, type Scenario } from '../lib/scenario.js';

const STORES = 10_000;
const ORDERS = 1_000_000;
const PRODUCTS_PER_STORE = 5;
/** Stores per INSERT of orders: each statement's analytics trigger locks each of its stores. */
const STORES_PER_BATCH = 1000;
const SAMPLES = Number(process.env.BENCH_OPERATOR_SAMPLES ?? 300);
const P99_TARGET_MS = 100;
const DATABASE = 'emporium_bench_operators_10k';
const OPERATOR = 'bench-operator@example.com';
const PASSWORD = 'bench operator password';

/**
 * 10,000 stores, each with an owner and 5 products, and 1,000,000 orders over the last 365 days, in
 * bulk SQL (generate_series); the orders' analytics triggers fill the journal as for any write, then
 * every store's journal is folded into its daily rollup, as the analytics report would.
 */
async function seed(pool: import('pg').Pool, log: (line: string) => void) {
  await pool.query(
    `INSERT INTO stores (id, slug, name, currency, timezone, created_at, updated_at)
     SELECT gen_random_uuid(), 'bench-op-' || g, 'Bench Shop ' || g, 'USD', 'UTC',
       now() - (g * interval '1 hour'), now() - (g * interval '1 hour')
     FROM generate_series(1, $1::int) g`,
    [STORES],
  );
  await pool.query(
    `INSERT INTO admin_users (id, email, password_hash)
     SELECT gen_random_uuid(), 'owner-' || substr(slug, 10) || '@bench.example', 'scrypt$x' FROM stores WHERE slug LIKE 'bench-op-%'`,
  );
  await pool.query(
    `INSERT INTO admin_user_stores (admin_user_id, store_id, role)
     SELECT u.id, s.id, 'owner' FROM stores s JOIN admin_users u ON u.email = 'owner-' || substr(s.slug, 10) || '@bench.example'`,
  );
  await pool.query(
    `INSERT INTO products (id, store_id, name, slug, price, status)
     SELECT gen_random_uuid(), s.id, 'Product ' || p, 'product-' || p, 1000, 'active'
     FROM stores s CROSS JOIN generate_series(1, $1::int) p WHERE s.slug LIKE 'bench-op-%'`,
    [PRODUCTS_PER_STORE],
  );
  log('stores, owners and products seeded; orders…');
  const perStore = ORDERS / STORES;
  for (let first = 1; first <= STORES; first += STORES_PER_BATCH) {
    await pool.query(
      `INSERT INTO orders (id, store_id, order_number, status, payment_status, fulfillment_status, currency,
         subtotal, total, amount_paid, customer_email, customer_first_name, created_at, updated_at)
       SELECT gen_random_uuid(), s.id, 1000 + n, CASE WHEN n % 10 = 0 THEN 'cancelled' ELSE 'processing' END,
         'paid', 'unfulfilled', 'USD', 1000 + n, 1000 + n, 1000 + n, 'buyer' || n || '@example.com', 'Buyer',
         now() - (n * 365 / $3::int) * interval '1 day', now()
       FROM stores s CROSS JOIN generate_series(1, $3::int) n
       WHERE s.slug LIKE 'bench-op-%' AND substr(s.slug, 10)::int BETWEEN $1 AND $2`,
      [first, first + STORES_PER_BATCH - 1, perStore],
    );
    log(`  orders of stores ${first}–${first + STORES_PER_BATCH - 1}`);
  }
  await pool.query(
    `INSERT INTO order_counters (store_id, next_number)
     SELECT id, 1001 + $1::int FROM stores WHERE slug LIKE 'bench-op-%' ON CONFLICT (store_id) DO NOTHING`,
    [perStore],
  );
  log('folding the analytics journals…');
  await pool.query(`SELECT analytics_fold(id) FROM stores WHERE slug LIKE 'bench-op-%'`);
  await pool.query('VACUUM (ANALYZE)');
}

async function seeded(pool: import('pg').Pool): Promise<boolean> {
  const result = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM order_counters c JOIN stores s ON s.id = c.store_id WHERE s.slug LIKE 'bench-op-%'`,
  );
  return Number(result.rows[0]?.n) === STORES;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};
const round2 = (n: number) => Math.round(n * 100) / 100;

export const scenario: Scenario = {
  name: 'operators-list',
  description: `GET /api/operator/stores over ${STORES.toLocaleString('en-US')} stores and ${ORDERS.toLocaleString('en-US')} orders: first page, a search, a later cursor page (p99 of ${SAMPLES} sequential requests each), next to GET /api/operator/me`,

  async run(log) {
    const notes: string[] = [];
    const { release, onExit } = cleanUpStack();
    try {
      const target = await benchServerFor(log, notes, onExit);
      let url = await persistentDatabase(target.adminUrl, DATABASE, false);
      let handle = openDatabase(url, { max: 10 });
      await migrateToLatest(handle.db);
      const reuse = await seeded(handle.pool);
      if (!reuse) {
        await handle.close();
        url = await persistentDatabase(target.adminUrl, DATABASE, true);
        handle = openDatabase(url, { max: 10 });
        await migrateToLatest(handle.db);
        log(`seeding ${STORES} stores and ${ORDERS.toLocaleString('en-US')} orders into ${DATABASE}…`);
        const started = performance.now();
        await seed(handle.pool, log);
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        notes.push(`data: seeded in this run in ${seconds} s (bulk SQL), kept in ${DATABASE}`);
      } else {
        notes.push(`data: reused from database ${DATABASE} (drop it to re-seed)`);
      }
      const database = handle;
      onExit('app pool', () => database.close());
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-bench-data-'));
      onExit('data dir', async () => fs.rmSync(dataDir, { recursive: true, force: true }));
      const config = loadConfig({
        LOG_LEVEL: 'silent',
        DATABASE_URL: url,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: '0',
        PUBLIC_URL: 'http://127.0.0.1:3000',
      });
      const app = await buildApp({
        config,
        db: database.db,
        logger: pino({ level: 'silent' }),
        rateLimitStore: new MemoryRateLimitStore(),
      });
      onExit('app', () => app.server.close());
      await app.services.operators
        .createOperator({ email: OPERATOR, password: PASSWORD })
        .catch(() => undefined);
      const baseUrl = await listenOnFreePort(app.server);
      const login = await fetch(`${baseUrl}/api/operator/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: OPERATOR, password: PASSWORD }),
      });
      if (login.status !== 200) throw new Error(`operator login answered ${login.status}`);
      const cookie = String(login.headers.get('set-cookie')).split(';')[0] as string;
      const get = async (pathAndQuery: string) => {
        const started = performance.now();
        const res = await fetch(baseUrl + pathAndQuery, { headers: { cookie } });
        const body = (await res.json()) as { data: unknown[]; next_cursor?: string | null };
        const ms = performance.now() - started;
        if (res.status !== 200) throw new Error(`${pathAndQuery} answered ${res.status}`);
        return { ms, body };
      };

      // A cursor deep in the list: 50 pages of 20 walked first.
      let cursor: string | null | undefined = null;
      for (let i = 0; i < 50; i++) {
        const page = await get(
          `/api/operator/stores${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        cursor = page.body.next_cursor;
      }
      if (!cursor) throw new Error('the list ended before page 50');
      const first = await get('/api/operator/stores');
      if (first.body.data.length !== 20) throw new Error('the first page is not full');
      const cases: [string, string][] = [
        ['first page (20 stores)', '/api/operator/stores'],
        ['search q=shop 77 (name)', `/api/operator/stores?q=${encodeURIComponent('shop 77')}`],
        [
          'search q=owner-9999@ (owner e-mail)',
          `/api/operator/stores?q=${encodeURIComponent('owner-9999@')}`,
        ],
        ['page 51 by cursor', `/api/operator/stores?cursor=${encodeURIComponent(cursor)}`],
        ['baseline: GET /api/operator/me', '/api/operator/me'],
      ];
      const times = new Map<string, number[]>(cases.map(([label]) => [label, []]));
      for (let i = 0; i < 20; i++) for (const [, path] of cases) await get(path); // warm-up
      for (let i = 0; i < SAMPLES; i++)
        for (const [label, path] of cases) times.get(label)?.push((await get(path)).ms);
      const baselineTimes = times.get('baseline: GET /api/operator/me') ?? [];
      const baselineP99 = percentile(baselineTimes, 99);
      const metrics = [];
      for (const [label] of cases.slice(0, -1)) {
        const values = times.get(label) ?? [];
        const p99 = percentile(values, 99);
        const p50 = percentile(values, 50);
        log(
          `${label}: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (baseline p99 ${baselineP99.toFixed(2)} ms, ×${(p99 / baselineP99).toFixed(2)})`,
        );
        metrics.push(
          metric({
            name: `${label}: p99`,
            unit: 'ms',
            ours: round2(p99),
            baseline: round2(baselineP99),
            baselineLabel: 'GET /api/operator/me (same session, same run)',
            target: { on: 'value', op: '<', value: P99_TARGET_MS },
          }),
        );
      }
      notes.push(
        `${SAMPLES} sequential requests per case over HTTP (node fetch, one at a time, cases interleaved), after 20 warm-up rounds; p99 of each`,
        'the server, PostgreSQL (if local) and the client share the same CPUs',
      );
      return { notes, metrics };
    } finally {
      await cleanUp(log, release);
    }
  },
};
