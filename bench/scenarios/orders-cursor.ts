import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createEmporiumClient } from '../../packages/sdk/src/index.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { MemoryRateLimitStore } from '../../src/platform/http/rate-limit.js';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { benchServerFor, persistentDatabase } from '../lib/database.js';
import { listenOnFreePort } from '../lib/http.js';
import { metric, type Scenario } from '../lib/scenario.js';

const ORDERS = 1_000_000;
const LIMIT = 100;
/** Pages timed at each end of the walk. */
const SAMPLE = 100;
const RATIO_TARGET = 1.2;
/** Rounds of the start/end comparison. */
const ROUNDS = 3;
/** The seeded database stays on the server: later runs reuse it (drop it to re-seed). */
const DATABASE = 'emporium_bench_orders_cursor_1m';
const MARKER_SLUG = 'bench-orders-cursor-1m';

/**
 * A million orders (one line item each) in bulk SQL: generate_series inserts, the store's order
 * counter set to match, then VACUUM ANALYZE. Not the `seed` command (minutes for a million, with
 * realistic histories): the walk only needs the rows and their indexes.
 */
async function seedOrders(pool: import('pg').Pool, storeId: string) {
  await pool.query(
    `INSERT INTO orders (id, store_id, order_number, status, payment_status, fulfillment_status, currency,
       subtotal, total, amount_paid, customer_email, customer_first_name, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 1000 + g, 'pending', 'unpaid', 'unfulfilled', 'USD',
       1000 + g % 9000, 1000 + g % 9000, 0, 'buyer' || (g % 50000) || '@example.com', 'Buyer',
       timestamptz '2025-01-01' + g * interval '30 seconds', timestamptz '2025-01-01' + g * interval '30 seconds'
     FROM generate_series(1, $2::int) AS g`,
    [storeId, ORDERS],
  );
  await pool.query(
    `INSERT INTO order_line_items (id, store_id, order_id, name, quantity, price, position)
     SELECT gen_random_uuid(), store_id, id, 'Item', 1 + order_number % 3, subtotal, 0 FROM orders WHERE store_id = $1`,
    [storeId],
  );
  await pool.query(
    `INSERT INTO order_counters (store_id, next_number) VALUES ($1, $2)
     ON CONFLICT (store_id) DO UPDATE SET next_number = EXCLUDED.next_number`,
    [storeId, 1001 + ORDERS],
  );
  await pool.query('VACUUM (ANALYZE) orders, order_line_items');
}

async function seededStore(pool: import('pg').Pool): Promise<string | undefined> {
  const result = await pool.query<{ id: string; next_number: string | null }>(
    'SELECT s.id, c.next_number FROM stores s LEFT JOIN order_counters c ON c.store_id = s.id WHERE s.slug = $1',
    [MARKER_SLUG],
  );
  const row = result.rows[0];
  return row && Number(row.next_number) === 1001 + ORDERS ? row.id : undefined;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const round2 = (n: number) => Math.round(n * 100) / 100;

export const scenario: Scenario = {
  name: 'orders-cursor',
  description: `Every page of GET /api/v1/orders?limit=${LIMIT} walked by cursor (the SDK's pages()) over ${ORDERS.toLocaleString('en-US')} orders: time per page at the start and at the end of the walk`,

  async run(log) {
    const notes: string[] = [];
    const { release, onExit } = cleanUpStack();
    try {
      const target = await benchServerFor(log, notes, onExit);
      let url = await persistentDatabase(target.adminUrl, DATABASE, false);
      let handle = openDatabase(url, { max: 10 });
      await migrateToLatest(handle.db);
      let storeId = await seededStore(handle.pool);
      if (!storeId) {
        await handle.close();
        url = await persistentDatabase(target.adminUrl, DATABASE, true);
        handle = openDatabase(url, { max: 10 });
        await migrateToLatest(handle.db);
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
          `reusing database ${DATABASE}: store ${MARKER_SLUG} holds ${ORDERS.toLocaleString('en-US')} orders`,
        );
        notes.push(`orders: reused from database ${DATABASE} (kept between runs; drop it to re-seed)`);
      } else {
        storeId = (await app.services.stores.createStore({ slug: MARKER_SLUG, name: 'Bench Cursor' })).id;
        log(`seeding ${ORDERS.toLocaleString('en-US')} orders with generate_series into ${DATABASE}…`);
        const started = performance.now();
        await seedOrders(database.pool, storeId);
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        log(`seeded in ${seconds} s (bulk INSERT … SELECT generate_series, then VACUUM ANALYZE)`);
        notes.push(
          `orders: seeded in this run in ${seconds} s (bulk SQL, one line item each), kept in ${DATABASE}`,
        );
      }
      const key = await app.services.stores.createApiKey(storeId, { name: 'bench', scopes: ['orders:read'] });
      onExit('API key', () => app.services.stores.revokeApiKeyById(key.id));

      const baseUrl = await listenOnFreePort(app.server);
      const sdk = createEmporiumClient({ baseUrl, apiKey: key.key, retry: false });

      // 1. The whole walk, as an export would do it: every order once, in order.
      const cursors: (string | undefined)[] = [undefined];
      const walkTimes: number[] = [];
      let seen = 0;
      let expectedNumber = 1000 + ORDERS;
      const walkStarted = performance.now();
      let last = performance.now();
      for await (const page of sdk.pages('/api/v1/orders', { params: { query: { limit: LIMIT } } })) {
        walkTimes.push(performance.now() - last);
        for (const order of page.data) {
          if (Number(order.order_number) !== expectedNumber)
            throw new Error(`walk out of order: got ${order.order_number}, expected ${expectedNumber}`);
          expectedNumber--;
        }
        seen += page.data.length;
        if (page.meta.pagination.next_cursor) cursors.push(page.meta.pagination.next_cursor);
        if (walkTimes.length % 2000 === 0)
          log(`  ${walkTimes.length.toLocaleString('en-US')} pages, ${seen.toLocaleString('en-US')} orders`);
        last = performance.now();
      }
      const walkSeconds = (performance.now() - walkStarted) / 1000;
      if (seen !== ORDERS) throw new Error(`the walk saw ${seen} orders, not ${ORDERS}`);

      // 2. Start and end compared under the same conditions: the first and the last SAMPLE pages
      // fetched again by their cursors, alternately, ROUNDS times (the walk's own first pages also
      // pay for the JIT and cold caches).
      const timed = async (cursor: string | undefined) => {
        const started = performance.now();
        const page = await sdk.get('/api/v1/orders', { params: { query: { limit: LIMIT, cursor } } });
        if (page.data.length !== LIMIT) throw new Error(`a sampled page held ${page.data.length} orders`);
        return performance.now() - started;
      };
      const startTimes: number[] = [];
      const endTimes: number[] = [];
      for (let round = 0; round < ROUNDS; round++)
        for (let i = 0; i < SAMPLE; i++) {
          startTimes.push(await timed(cursors[i]));
          endTimes.push(await timed(cursors[cursors.length - SAMPLE + i]));
        }
      const firstMedian = median(startTimes);
      const endMedian = median(endTimes);
      const ratio = endMedian / firstMedian;
      log(
        `walked ${seen.toLocaleString('en-US')} orders in ${walkTimes.length} pages, ${walkSeconds.toFixed(1)} s; ` +
          `time per page: first ${SAMPLE} pages median ${firstMedian.toFixed(2)} ms, last ${SAMPLE} ${endMedian.toFixed(2)} ms, ratio ${ratio.toFixed(2)}×`,
      );
      notes.push(
        `walk: ${walkTimes.length} pages of ${LIMIT} through the SDK (createEmporiumClient().pages, node fetch, one request at a time) in ${walkSeconds.toFixed(1)} s; every order seen once, in order; ` +
          `time per page during the walk: first ${SAMPLE} median ${median(walkTimes.slice(0, SAMPLE)).toFixed(2)} ms, last ${SAMPLE} median ${median(walkTimes.slice(-SAMPLE)).toFixed(2)} ms, all ${median(walkTimes).toFixed(2)} ms`,
        `start vs end: pages 1–${SAMPLE} and ${walkTimes.length - SAMPLE + 1}–${walkTimes.length} fetched again by their cursors, alternately, ${ROUNDS} rounds: ` +
          `start median ${firstMedian.toFixed(2)} ms (mean ${mean(startTimes).toFixed(2)}), end median ${endMedian.toFixed(2)} ms (mean ${mean(endTimes).toFixed(2)})`,
        'the server, PostgreSQL (if local) and the client share the same CPUs',
      );
      return {
        notes,
        metrics: [
          metric({
            name: `first ${SAMPLE} pages: time per page (median)`,
            unit: 'ms',
            ours: round2(firstMedian),
          }),
          metric({
            name: `last ${SAMPLE} pages: time per page (median)`,
            unit: 'ms',
            ours: round2(endMedian),
          }),
          metric({
            name: 'end / start time per page',
            unit: '×',
            better: 'lower',
            ours: round2(ratio),
            target: { on: 'value', op: '<', value: RATIO_TARGET },
          }),
          metric({
            name: `whole walk (${ORDERS.toLocaleString('en-US')} orders)`,
            unit: 's',
            ours: round2(walkSeconds),
          }),
        ],
      };
    } finally {
      await cleanUp(log, release);
    }
  },
};
