import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import Fastify from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { listOrders } from '../../src/modules/orders/orders.repository.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { MemoryRateLimitStore } from '../../src/platform/http/rate-limit.js';
import { currencyDecimals, toDecimalNumber } from '../../src/platform/money.js';
import { seedStore } from '../../src/seed/seed.js';
import { capturingDb } from '../lib/capture-sql.js';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { benchServerFor, persistentDatabase } from '../lib/database.js';
import { getJson, listenOnFreePort } from '../lib/http.js';
import { measurePages } from '../lib/page-runs.js';
import { envNumber } from '../lib/rounds.js';
import type { Scenario } from '../lib/scenario.js';

const ORDERS = 1_000_000;
const LIMIT = 50;
const DEEP_PAGE = 10_000;
/** openDatabase's default pool size, which the app gets in `npm start`; the baseline gets the same. */
const POOL_SIZE = 10;
const P99_TARGET_MS = 30;
/**
 * Seeding a million orders takes minutes, so the seeded database stays on the server and later runs
 * reuse it: it holds the store MARKER_SLUG with exactly ORDERS orders, or it is rebuilt.
 */
const DATABASE = 'emporium_bench_orders_1m';
const MARKER_SLUG = 'bench-orders-1m';
const PAGES = { first: 1, deep: DEEP_PAGE } as const;
const pathOf = (page: number) => `/api/v1/orders?limit=${LIMIT}${page > 1 ? `&page=${page}` : ''}`;

/**
 * The classic list: newest first by creation time with OFFSET and an exact count(*) on every request,
 * then the page's item counts in one grouped query (as an ORM's eager load would).
 */
const CLASSIC_SQL = {
  page: 'SELECT * FROM orders WHERE store_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3',
  count: 'SELECT count(*) AS total FROM orders WHERE store_id = $1',
  itemCounts: `SELECT order_id, sum(quantity)::int AS item_count FROM order_line_items
    WHERE store_id = $1 AND order_id = ANY($2::uuid[]) GROUP BY order_id`,
};
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The marker store's id when it holds the full seed, else undefined. */
async function seededStore(pool: pg.Pool): Promise<string | undefined> {
  const result = await pool.query<{ id: string; next_number: number | string | null }>(
    `SELECT s.id, c.next_number FROM stores s LEFT JOIN order_counters c ON c.store_id = s.id WHERE s.slug = $1`,
    [MARKER_SLUG],
  );
  const row = result.rows[0];
  return row && Number(row.next_number) === 1001 + ORDERS ? row.id : undefined;
}

/** The SQL our repository sends for an unfiltered list page, captured from listOrders itself. */
async function captureRepositorySql(pool: pg.Pool, storeId: string) {
  const { db: capturing, queries } = capturingDb(pool);
  await listOrders(capturing, storeId, {}, { offset: (DEEP_PAGE - 1) * LIMIT, limit: LIMIT });
  return queries.map((q) => `${oneLine(q.sql)}  -- ${JSON.stringify(q.parameters)}`);
}

interface OrderRecord {
  id: string;
  order_number: number;
  status: string;
  payment_status: string;
  fulfillment_status: string;
  currency: string;
  subtotal: number;
  discount_amount: number;
  shipping_amount: number;
  tax_amount: number;
  total: number;
  amount_paid: number;
  amount_refunded: number;
  customer_id: string | null;
  customer_email: string;
  customer_first_name: string | null;
  customer_last_name: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The classic handler: bare Fastify (no schemas, hooks or plugins) and a pg Pool, running the
 * OFFSET page and the count in parallel for a fixed store, then the page's item counts, and building
 * the same envelope by hand. No authentication.
 */
async function buildBaseline(pool: pg.Pool, store: { id: string; currency: string }) {
  const decimals = currencyDecimals(store.currency);
  const amount = (minor: number) => toDecimalNumber(minor, decimals);
  const server = Fastify();
  server.get('/api/v1/orders', async (request) => {
    const query = request.query as { page?: string; limit?: string };
    const limit = Number(query.limit ?? 20);
    const page = Number(query.page ?? 1);
    const [rows, count] = await Promise.all([
      pool.query<OrderRecord>(CLASSIC_SQL.page, [store.id, limit, (page - 1) * limit]),
      pool.query<{ total: number | string }>(CLASSIC_SQL.count, [store.id]),
    ]);
    const items = await pool.query<{ order_id: string; item_count: number }>(CLASSIC_SQL.itemCounts, [
      store.id,
      rows.rows.map((o) => o.id),
    ]);
    const itemCount = new Map(items.rows.map((r) => [r.order_id, r.item_count]));
    const total = Number(count.rows[0]?.total ?? 0);
    const totalPages = Math.ceil(total / limit);
    return {
      data: rows.rows.map((o) => ({
        id: o.id,
        order_number: String(o.order_number),
        status: o.status,
        payment_status: o.payment_status,
        fulfillment_status: o.fulfillment_status,
        currency: o.currency,
        subtotal: amount(Number(o.subtotal)),
        discount_amount: amount(Number(o.discount_amount)),
        shipping_amount: amount(Number(o.shipping_amount)),
        tax_amount: amount(Number(o.tax_amount)),
        total: amount(Number(o.total)),
        amount_paid: amount(Number(o.amount_paid)),
        amount_refunded: amount(Number(o.amount_refunded)),
        balance_due: amount(Number(o.total) - Number(o.amount_paid)),
        item_count: itemCount.get(o.id) ?? 0,
        customer: {
          id: o.customer_id,
          email: o.customer_email,
          first_name: o.customer_first_name,
          last_name: o.customer_last_name,
        },
        created_at: o.created_at.toISOString(),
        updated_at: o.updated_at.toISOString(),
      })),
      meta: {
        pagination: {
          page,
          limit,
          total,
          total_pages: totalPages,
          has_next: page < totalPages,
          has_prev: page > 1,
        },
      },
    };
  });
  await server.ready();
  return server;
}

/** Both servers must answer both pages with the same data before either is measured. */
async function checkSameAnswer(oursUrl: string, baselineUrl: string, apiKey: string) {
  for (const page of Object.values(PAGES)) {
    const [ours, baseline] = await Promise.all([
      getJson(oursUrl + pathOf(page), { 'x-api-key': apiKey }),
      getJson(baselineUrl + pathOf(page)),
    ]);
    if (ours.status !== 200 || baseline.status !== 200) {
      throw new Error(
        `correctness check (page ${page}): status ours ${ours.status} ${JSON.stringify(ours.body).slice(0, 300)}, baseline ${baseline.status}`,
      );
    }
    const oursBody = ours.body as {
      data: Array<{ order_number: string }>;
      meta: { pagination: Record<string, unknown> };
    };
    const baselineBody = baseline.body as { data: unknown[]; meta: unknown };
    const expectedFirst = String(1000 + ORDERS - (page - 1) * LIMIT);
    if (oursBody.data.length !== LIMIT || oursBody.data[0]?.order_number !== expectedFirst) {
      throw new Error(
        `correctness check (page ${page}): ours returned ${JSON.stringify(oursBody).slice(0, 300)}`,
      );
    }
    if (!isDeepStrictEqual(oursBody.data, baselineBody.data)) {
      const i = oursBody.data.findIndex((item, n) => !isDeepStrictEqual(item, baselineBody.data[n]));
      throw new Error(
        `correctness check FAILED (page ${page}): the data arrays differ at index ${i}:\n  ours:     ${JSON.stringify(oursBody.data[i])}\n  baseline: ${JSON.stringify(baselineBody.data?.[i])}`,
      );
    }
    // The cursor of the next page is ours alone: the classic list has none.
    const { next_cursor: _cursor, ...oursPagination } = oursBody.meta.pagination;
    if (!isDeepStrictEqual({ pagination: oursPagination }, baselineBody.meta)) {
      throw new Error(
        `correctness check FAILED (page ${page}): meta differs: ours ${JSON.stringify(oursBody.meta)}, baseline ${JSON.stringify(baselineBody.meta)}`,
      );
    }
  }
}

export const scenario: Scenario = {
  name: 'orders-list',
  description: `GET /api/v1/orders?limit=${LIMIT} at page 1 and page ${DEEP_PAGE.toLocaleString('en-US')} over ${ORDERS.toLocaleString('en-US')} seeded orders: the real app vs the classic OFFSET + count(*) on bare Fastify + pg`,

  async run(log) {
    const warmupSec = envNumber('BENCH_WARMUP', 3);
    const durationSec = envNumber('BENCH_DURATION', 10);
    const connections = envNumber('BENCH_CONNECTIONS', 10);
    const rounds = Math.round(envNumber('BENCH_ROUNDS', 1));
    const notes: string[] = [];
    const { release, onExit } = cleanUpStack();

    try {
      const target = await benchServerFor(log, notes, onExit);

      let url = await persistentDatabase(target.adminUrl, DATABASE, false);
      let handle = openDatabase(url, { max: POOL_SIZE });
      await migrateToLatest(handle.db);
      let storeId = await seededStore(handle.pool);
      if (!storeId) {
        // Missing or incomplete: start from an empty database.
        await handle.close();
        url = await persistentDatabase(target.adminUrl, DATABASE, true);
        handle = openDatabase(url, { max: POOL_SIZE });
        await migrateToLatest(handle.db);
      }
      const database = handle;
      onExit('app pool', () => database.close());

      // The app's DATA_DIR (local media storage): a temporary one, never ./data.
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-bench-data-'));
      onExit('data dir', async () => fs.rmSync(dataDir, { recursive: true, force: true }));
      const config = loadConfig({
        LOG_LEVEL: 'silent',
        DATABASE_URL: url,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: '0',
        RATE_LIMIT_PER_MINUTE: '1000000000',
      });
      const app = await buildApp({
        config,
        db: database.db,
        logger: pino({ level: 'silent' }),
        rateLimitStore: new MemoryRateLimitStore(),
      });
      onExit('app', () => app.server.close());

      if (storeId) {
        log(
          `reusing database ${DATABASE}: store ${MARKER_SLUG} already holds ${ORDERS.toLocaleString('en-US')} orders`,
        );
        notes.push(
          `orders: reused from database ${DATABASE} (kept on the server between runs; drop it to re-seed)`,
        );
      } else {
        const store = await app.services.stores.createStore({ slug: MARKER_SLUG, name: 'Bench Orders' });
        storeId = store.id;
        log(`seeding ${ORDERS.toLocaleString('en-US')} orders into ${DATABASE} (kept for later runs)…`);
        const seedStart = performance.now();
        let nextReport = 0;
        const result = await seedStore(
          app.services,
          app.mediaStorage,
          {
            storeSlug: MARKER_SLUG,
            products: 50,
            customers: 0,
            orders: ORDERS,
            onProgress: (label, done, total) => {
              if (label === 'orders' && done >= nextReport) {
                log(`  ${label}: ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`);
                nextReport += 100_000;
              }
            },
          },
          database.db,
        );
        await database.pool.query('VACUUM (ANALYZE) orders, order_line_items, customers');
        const seconds = ((performance.now() - seedStart) / 1000).toFixed(0);
        log(`seeded in ${seconds} s (then VACUUM ANALYZE)`);
        notes.push(
          `orders: seeded in this run with \`seed\` (${result.products} products, ${result.customers} customers, ` +
            `${result.orders.toLocaleString('en-US')} orders) in ${seconds} s, then VACUUM ANALYZE; kept in database ${DATABASE} for later runs`,
        );
      }
      const seededStoreId = storeId;
      const key = await app.services.stores.createApiKey(seededStoreId, {
        name: 'bench',
        scopes: ['orders:read'],
      });
      onExit('API key', () => app.services.stores.revokeApiKeyById(key.id));

      notes.push(
        'ours: the repository SQL for an unfiltered page, captured from listOrders (page 10,000):',
        ...(await captureRepositorySql(database.pool, seededStoreId)).map((q) => `  ${q}`),
        'baseline: the classic list, page and count in parallel on every request, then the item counts of the page:',
        `  page:  ${CLASSIC_SQL.page}`,
        `  count: ${CLASSIC_SQL.count}`,
        `  items: ${oneLine(CLASSIC_SQL.itemCounts)}`,
      );

      const baselinePool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
      onExit('baseline pool', () => baselinePool.end());
      const baseline = await buildBaseline(baselinePool, await app.services.stores.getStore(seededStoreId));
      onExit('baseline server', () => baseline.close());
      const oursUrl = await listenOnFreePort(app.server);
      const baselineUrl = await listenOnFreePort(baseline);
      await checkSameAnswer(oursUrl, baselineUrl, key.key);
      log(`correctness check passed: identical data and meta from both servers at pages 1 and ${DEEP_PAGE}`);

      const label =
        'bare Fastify 5 + pg Pool: ORDER BY created_at DESC LIMIT/OFFSET + count(*), no auth/schemas';
      const measured = await measurePages(
        {
          pages: PAGES,
          pathOf,
          urls: { ours: oursUrl, baseline: baselineUrl },
          headers: { ours: { 'x-api-key': key.key }, baseline: {} },
          connections,
          warmupSec,
          durationSec,
          rounds,
          setting: `both servers in the bench process, pools of ${POOL_SIZE}, rate limit 1e9/min, LOG_LEVEL silent`,
          log,
        },
        { baselineLabel: label, p99TargetMs: P99_TARGET_MS },
      );
      return { notes: [...notes, ...measured.notes], metrics: measured.metrics };
    } finally {
      await cleanUp(log, release);
    }
  },
};
