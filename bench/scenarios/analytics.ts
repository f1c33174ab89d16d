import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import Fastify from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { MemoryRateLimitStore } from '../../src/platform/http/rate-limit.js';
import { currencyDecimals, toDecimalNumber } from '../../src/platform/money.js';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { benchServerFor, persistentDatabase } from '../lib/database.js';
import { getJson, listenOnFreePort } from '../lib/http.js';
import { type MeasuredLoad, warmUpAndMeasure } from '../lib/load.js';
import { envNumber, median, medianLoad } from '../lib/rounds.js';
import { metric, type Scenario } from '../lib/scenario.js';

const ORDERS = 1_000_000;
const CUSTOMERS = 250_000;
const PRODUCTS = 1_000;
/** Orders are spread over this many days up to the seed's last day: a year and a bit of history. */
const HISTORY_DAYS = 400;
const RANGE_DAYS = 365;
const TIMEZONE = 'America/New_York';
const POOL_SIZE = 10;
const P99_TARGET_MS = 150;
/** Requests of the direct-SQL baseline, one at a time (each reads the million orders). */
const BASELINE_REQUESTS = 5;
/**
 * Seeding a million orders takes minutes, so the database stays on the server and later runs reuse
 * it: it holds the store MARKER_SLUG with exactly ORDERS orders, or it is rebuilt.
 */
const DATABASE = 'emporium_bench_analytics_1m';
const MARKER_SLUG = 'bench-analytics-1m';
const STORE_ID = '00000000-0000-4000-8000-0000000a0001';

async function isSeeded(pool: pg.Pool): Promise<boolean> {
  const result = await pool.query<{ next_number: string | number | null }>(
    `SELECT c.next_number FROM stores s LEFT JOIN order_counters c ON c.store_id = s.id WHERE s.slug = $1`,
    [MARKER_SLUG],
  );
  return Number(result.rows[0]?.next_number) === 1001 + ORDERS;
}

/** A sequential UUID (fast index inserts): `prefix` tells the kinds of rows apart. */
const seqUuid = (prefix: string, column: string) => `('${prefix}' || lpad(to_hex(${column}), 12, '0'))::uuid`;

/**
 * A million orders in one transaction with the analytics triggers paused, written by INSERT …
 * SELECT generate_series (statuses, partial payments, discounts and 1–3 lines drawn at random),
 * then one analytics_rebuild of the store. Returns the seconds of each step.
 */
async function seed(pool: pg.Pool, log: (line: string) => void) {
  const client = await pool.connect();
  const timings: Record<string, number> = {};
  const step = async (label: string, sql: string, params: unknown[] = []) => {
    const started = performance.now();
    await client.query(sql, params);
    timings[label] = (performance.now() - started) / 1000;
    log(`  ${label}: ${timings[label]?.toFixed(1)} s`);
  };
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL emporium.analytics_paused = 'on'`);
    await client.query('SET LOCAL synchronous_commit = off');
    await step(
      'store and customers',
      `WITH store AS (
         INSERT INTO stores (id, slug, name, currency, timezone) VALUES ($1, $2, 'Bench Analytics', 'USD', $3)
       )
       INSERT INTO customers (id, store_id, email, created_at, updated_at)
       SELECT ${seqUuid('00000000-0000-7000-8001-', 'g')}, $1, 'customer' || g || '@example.com',
         now() - interval '2 years', now() - interval '2 years'
       FROM generate_series(1, ${CUSTOMERS}) g`,
      [STORE_ID, MARKER_SLUG, TIMEZONE],
    );
    await step(
      'orders',
      `INSERT INTO orders (id, store_id, order_number, status, payment_status, fulfillment_status, currency,
         subtotal, discount_amount, total, amount_paid, customer_id, customer_email, created_at, updated_at)
       SELECT ${seqUuid('00000000-0000-7000-8002-', 'g')}, $1, 1000 + g, status,
         CASE WHEN status = 'cancelled' THEN CASE WHEN paid > 0 THEN 'refund_due' ELSE 'unpaid' END
           WHEN paid >= total THEN 'paid' WHEN paid > 0 THEN 'partially_paid' ELSE 'unpaid' END,
         CASE WHEN status = 'completed' THEN 'fulfilled' ELSE 'unfulfilled' END,
         'USD', subtotal, discount, total, paid, ${seqUuid('00000000-0000-7000-8001-', 'customer')},
         'customer' || customer || '@example.com', created_at, created_at
       FROM (
         SELECT g, status, subtotal, discount, subtotal - discount AS total, customer, created_at,
           CASE WHEN status IN ('processing', 'completed') THEN subtotal - discount
             WHEN r2 < 0.3 THEN (subtotal - discount) / 3 ELSE 0 END AS paid
         FROM (
           SELECT g, r2, customer, created_at, subtotal,
             CASE WHEN r3 < 0.2 THEN subtotal / 10 ELSE 0 END AS discount,
             CASE WHEN r1 < 0.05 THEN 'cancelled' WHEN r1 < 0.15 THEN 'pending' WHEN r1 < 0.30 THEN 'processing'
               WHEN r1 < 0.32 THEN 'on_hold' ELSE 'completed' END AS status
           FROM (
             SELECT g, random() AS r1, random() AS r2, random() AS r3,
               1 + floor(random() * ${CUSTOMERS})::int AS customer,
               (1000 + floor(random() * 20000))::bigint AS subtotal,
               date_trunc('day', now()) - random() * interval '${HISTORY_DAYS} days' AS created_at
             FROM generate_series(1, ${ORDERS}) g
           ) a
         ) b
       ) c`,
      [STORE_ID],
    );
    await step(
      'line items',
      `INSERT INTO order_line_items (id, store_id, order_id, product_id, name, quantity, price, position)
       SELECT ${seqUuid('00000000-0000-7000-8003-', '(g * 3 + k)')}, $1, ${seqUuid('00000000-0000-7000-8002-', 'g')},
         ${seqUuid('00000000-0000-7000-8004-', 'p')}, 'Product ' || p, 1 + (g + k) % 3, 500 + p * 7, k
       FROM (SELECT g, k, 1 + floor(random() * ${PRODUCTS})::int AS p
         FROM generate_series(1, ${ORDERS}) g, generate_series(0, 1 + g % 2) k) x`,
      [STORE_ID],
    );
    await step('order counter', 'INSERT INTO order_counters (store_id, next_number) VALUES ($1, $2)', [
      STORE_ID,
      1001 + ORDERS,
    ]);
    await client.query('COMMIT');
    await step('analytics_rebuild', 'SELECT analytics_rebuild($1)', [STORE_ID]);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  return timings;
}

interface Range {
  from: string;
  to: string;
}

/**
 * The floor of the other design: bare Fastify (no schemas, hooks or auth) and a pg Pool computing
 * the same report straight from the orders with aggregate SQL (what the rollups replace).
 */
async function buildBaseline(pool: pg.Pool, range: Range, previous: Range) {
  const decimals = currencyDecimals('USD');
  const money = (minor: number | string) => toDecimalNumber(Number(minor), decimals);
  const bounds = (r: Range) => [
    `(date '${r.from}')::timestamp AT TIME ZONE '${TIMEZONE}'`,
    `(date '${r.to}' + 1)::timestamp AT TIME ZONE '${TIMEZONE}'`,
  ];
  const [lo, hi] = bounds(range);
  const [plo] = bounds(previous);
  const localDay = (column: string) => `(${column} AT TIME ZONE '${TIMEZONE}')::date::text`;
  const server = Fastify();
  server.get('/api/v1/analytics', async () => {
    const [days, items, top, customers, refunds, taxPlaces] = await Promise.all([
      pool.query(
        `SELECT ${localDay('created_at')} AS day,
           count(*) FILTER (WHERE status <> 'cancelled') AS orders,
           coalesce(sum(amount_paid) FILTER (WHERE status <> 'cancelled'), 0) AS revenue,
           coalesce(sum(discount_amount) FILTER (WHERE status <> 'cancelled'), 0) AS discounts,
           coalesce(sum(shipping_amount) FILTER (WHERE status <> 'cancelled'), 0) AS shipping,
           coalesce(sum(tax_amount) FILTER (WHERE status <> 'cancelled'), 0) AS tax,
           count(*) FILTER (WHERE status = 'pending') AS pending,
           count(*) FILTER (WHERE status = 'processing') AS processing,
           count(*) FILTER (WHERE status = 'on_hold') AS on_hold,
           count(*) FILTER (WHERE status = 'completed') AS completed,
           count(*) FILTER (WHERE status = 'cancelled') AS cancelled
         FROM orders WHERE store_id = $1 AND created_at >= ${plo} AND created_at < ${hi}
         GROUP BY 1`,
        [STORE_ID],
      ),
      pool.query(
        `SELECT ${localDay('o.created_at')} AS day, sum(li.quantity) AS items
         FROM orders o JOIN order_line_items li ON li.order_id = o.id
         WHERE o.store_id = $1 AND o.status <> 'cancelled' AND o.created_at >= ${plo} AND o.created_at < ${hi}
         GROUP BY 1`,
        [STORE_ID],
      ),
      pool.query(
        `WITH top AS (
           SELECT li.product_id, sum(li.quantity) AS quantity, sum(li.quantity * li.price) AS revenue
           FROM orders o JOIN order_line_items li ON li.order_id = o.id
           WHERE o.store_id = $1 AND o.status <> 'cancelled' AND li.product_id IS NOT NULL
             AND o.created_at >= ${lo} AND o.created_at < ${hi}
           GROUP BY 1 HAVING sum(li.quantity) > 0
           ORDER BY revenue DESC, quantity DESC, product_id LIMIT 10
         )
         SELECT top.product_id, top.quantity, top.revenue,
           (SELECT li.name FROM order_line_items li JOIN orders o ON o.id = li.order_id
            WHERE li.store_id = $1 AND li.product_id = top.product_id
            ORDER BY o.created_at DESC, li.position DESC LIMIT 1) AS name
         FROM top ORDER BY top.revenue DESC, top.quantity DESC, top.product_id`,
        [STORE_ID],
      ),
      pool.query(
        `WITH firsts AS (
           SELECT customer_id, min(created_at) AS first FROM orders
           WHERE store_id = $1 AND status <> 'cancelled' AND customer_id IS NOT NULL GROUP BY 1
         ), active AS (
           SELECT DISTINCT customer_id, created_at >= ${lo} AS current FROM orders
           WHERE store_id = $1 AND status <> 'cancelled' AND customer_id IS NOT NULL
             AND created_at >= ${plo} AND created_at < ${hi}
         )
         SELECT
           (SELECT count(*) FROM firsts WHERE first >= ${lo} AND first < ${hi}) AS new_current,
           (SELECT count(*) FROM firsts WHERE first >= ${plo} AND first < ${lo}) AS new_previous,
           (SELECT count(*) FROM active a JOIN firsts f USING (customer_id) WHERE a.current AND f.first < ${lo})
             AS returning_current,
           (SELECT count(*) FROM active a JOIN firsts f USING (customer_id) WHERE NOT a.current AND f.first < ${plo})
             AS returning_previous`,
        [STORE_ID],
      ),
      // Succeeded refunds made in each period, of orders not cancelled (the report's `refunds`).
      pool.query(
        `SELECT coalesce(sum(r.amount) FILTER (WHERE r.created_at >= ${lo}), 0) AS current,
           coalesce(sum(r.amount) FILTER (WHERE r.created_at < ${lo}), 0) AS previous
         FROM refunds r JOIN orders o ON o.store_id = r.store_id AND o.id = r.order_id
         WHERE r.store_id = $1 AND r.status = 'succeeded' AND o.status <> 'cancelled'
           AND r.created_at >= ${plo} AND r.created_at < ${hi}`,
        [STORE_ID],
      ),
      // Issue 31's tax per place, straight from the orders' tax lines (the same place function the
      // rollups use), largest first, then by country and region.
      pool.query(
        `SELECT p.country, p.region, sum(p.amount)::bigint AS amount
         FROM orders o CROSS JOIN LATERAL analytics_tax_places(o.tax_lines) p
         WHERE o.store_id = $1 AND o.status <> 'cancelled' AND o.created_at >= ${lo} AND o.created_at < ${hi}
         GROUP BY 1, 2
         ORDER BY 3 DESC, p.country COLLATE "C", p.region COLLATE "C"`,
        [STORE_ID],
      ),
    ]);
    const itemsOf = new Map(items.rows.map((r) => [r.day as string, Number(r.items)]));
    const c = customers.rows[0];
    const totals = (r: Range, newCustomers: number, returning: number, refunded: number) => {
      const rows = days.rows.filter((d) => d.day >= r.from && d.day <= r.to);
      const revenue = rows.reduce((s, d) => s + Number(d.revenue), 0);
      const orders = rows.reduce((s, d) => s + Number(d.orders), 0);
      return {
        revenue: money(revenue),
        orders,
        average_order_value: money(orders ? Math.floor((2 * revenue + orders) / (2 * orders)) : 0),
        items_sold: rows.reduce((s, d) => s + (itemsOf.get(d.day) ?? 0), 0),
        discounts: money(rows.reduce((s, d) => s + Number(d.discounts), 0)),
        shipping: money(rows.reduce((s, d) => s + Number(d.shipping), 0)),
        tax: money(rows.reduce((s, d) => s + Number(d.tax), 0)),
        refunds: money(refunded),
        net_revenue: money(revenue - refunded),
        new_customers: newCustomers,
        returning_customers: returning,
      };
    };
    const byDay = new Map(days.rows.map((d) => [d.day as string, d]));
    const timeseries = [];
    const status_breakdown = { pending: 0, processing: 0, on_hold: 0, completed: 0, cancelled: 0 };
    for (
      let t = Date.parse(`${range.from}T00:00:00Z`);
      t <= Date.parse(`${range.to}T00:00:00Z`);
      t += 86_400_000
    ) {
      const day = new Date(t).toISOString().slice(0, 10);
      const d = byDay.get(day);
      timeseries.push({ period_start: day, revenue: money(d?.revenue ?? 0), orders: Number(d?.orders ?? 0) });
      for (const status of Object.keys(status_breakdown) as (keyof typeof status_breakdown)[])
        status_breakdown[status] += Number(d?.[status] ?? 0);
    }
    return {
      data: {
        currency: 'USD',
        from: range.from,
        to: range.to,
        interval: 'day',
        totals: totals(
          range,
          Number(c.new_current),
          Number(c.returning_current),
          Number(refunds.rows[0]?.current),
        ),
        previous_period: {
          from: previous.from,
          to: previous.to,
          ...totals(
            previous,
            Number(c.new_previous),
            Number(c.returning_previous),
            Number(refunds.rows[0]?.previous),
          ),
        },
        timeseries,
        top_products: top.rows.map((p) => ({
          product_id: p.product_id,
          name: p.name,
          quantity: Number(p.quantity),
          revenue: money(p.revenue),
        })),
        tax_by_region: taxPlaces.rows.map((p) => ({
          country: p.country === '' ? null : p.country,
          region: p.region === '' ? null : p.region,
          amount: money(p.amount),
        })),
        status_breakdown,
      },
    };
  });
  await server.ready();
  return server;
}

export const scenario: Scenario = {
  name: 'analytics',
  description: `GET /api/v1/analytics, ${RANGE_DAYS} days by day, on a store with ${ORDERS.toLocaleString('en-US')} orders: rollups vs the same report by direct aggregate SQL`,

  async run(log) {
    const warmupSec = envNumber('BENCH_WARMUP', 3);
    const durationSec = envNumber('BENCH_DURATION', 10);
    const connections = envNumber('BENCH_CONNECTIONS', 10);
    const rounds = Math.round(envNumber('BENCH_ROUNDS', 1));
    const notes: string[] = [];
    const { release, onExit } = cleanUpStack();

    try {
      const target = await benchServerFor(log, notes, onExit, `, database ${DATABASE} kept between runs`);

      let url = await persistentDatabase(target.adminUrl, DATABASE, false);
      let database = openDatabase(url, { max: POOL_SIZE });
      await migrateToLatest(database.db);
      if (!(await isSeeded(database.pool))) {
        await database.close();
        url = await persistentDatabase(target.adminUrl, DATABASE, true);
        database = openDatabase(url, { max: POOL_SIZE });
        await migrateToLatest(database.db);
        log(`seeding ${ORDERS.toLocaleString('en-US')} orders (once; later runs reuse ${DATABASE})…`);
        const timings = await seed(database.pool, log);
        await database.pool.query(
          'VACUUM (ANALYZE) orders, order_line_items, customers, analytics_daily, analytics_product_sales, analytics_customer_days, analytics_customer_bounds',
        );
        notes.push(
          `seeded now: ${Object.entries(timings)
            .map(([label, s]) => `${label} ${s.toFixed(1)} s`)
            .join(', ')} (orders with the triggers paused, then one rebuild)`,
        );
      } else {
        log(`reusing ${DATABASE}: store ${MARKER_SLUG} holds ${ORDERS.toLocaleString('en-US')} orders`);
        notes.push(`reused the seeded database (store ${MARKER_SLUG})`);
      }
      const handle = database;
      onExit('app pool', () => handle.close());

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
        db: handle.db,
        logger: pino({ level: 'silent' }),
        rateLimitStore: new MemoryRateLimitStore(),
      });
      onExit('app', () => app.server.close());
      const key = await app.services.stores.createApiKey(STORE_ID, {
        name: 'bench',
        scopes: ['analytics:read'],
      });
      onExit('api key', () => handle.pool.query('DELETE FROM api_keys WHERE id = $1', [key.id]));

      // The year ending on the seed's last local day (the seed ends on the day it ran).
      const last = await handle.pool.query<{ day: string }>(
        `SELECT max(day)::text AS day FROM analytics_daily WHERE store_id = $1`,
        [STORE_ID],
      );
      const to = last.rows[0]?.day as string;
      const dayOf = (offset: number) =>
        new Date(Date.parse(`${to}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
      const range = { from: dayOf(-(RANGE_DAYS - 1)), to };
      const previous = { from: dayOf(-(2 * RANGE_DAYS - 1)), to: dayOf(-RANGE_DAYS) };
      const query = `/api/v1/analytics?from=${range.from}&to=${range.to}&interval=day`;

      const baselinePool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
      onExit('baseline pool', () => baselinePool.end());
      const baseline = await buildBaseline(baselinePool, range, previous);
      onExit('baseline server', () => baseline.close());
      const oursUrl = await listenOnFreePort(app.server);
      const baselineUrl = await listenOnFreePort(baseline);

      // Correctness first: the rollups must give exactly what the direct SQL computes.
      const timed = async (base: string) => {
        const started = performance.now();
        const res = await getJson(base + query, { 'x-api-key': key.key });
        return { ms: performance.now() - started, res };
      };
      const first = await timed(oursUrl);
      const direct = await timed(baselineUrl);
      if (first.res.status !== 200 || direct.res.status !== 200) {
        throw new Error(
          `correctness check: status ours ${first.res.status} ${JSON.stringify(first.res.body).slice(0, 300)}, baseline ${direct.res.status}`,
        );
      }
      if (!isDeepStrictEqual(first.res.body, direct.res.body)) {
        const ours = (first.res.body as { data: Record<string, unknown> }).data;
        const bare = (direct.res.body as { data: Record<string, unknown> }).data;
        const field = Object.keys(bare).find((k) => !isDeepStrictEqual(ours[k], bare[k]));
        throw new Error(
          `correctness check FAILED on ${field}:\n  ours:     ${JSON.stringify(ours[field ?? '']).slice(0, 600)}\n  baseline: ${JSON.stringify(bare[field ?? '']).slice(0, 600)}`,
        );
      }
      const totals = (
        first.res.body as {
          data: {
            totals: { orders: number; revenue: number; new_customers: number; returning_customers: number };
          };
        }
      ).data.totals;
      log(`correctness check passed: identical reports (${totals.orders} orders, revenue ${totals.revenue})`);
      notes.push(
        `request: GET ${query} (${TIMEZONE}); the report covers ${totals.orders.toLocaleString('en-US')} orders not cancelled, ` +
          `${totals.new_customers} new and ${totals.returning_customers} returning customers`,
        `first request (cold plans and caches): ours ${first.ms.toFixed(0)} ms, direct SQL ${direct.ms.toFixed(0)} ms`,
      );

      const baselineMs: number[] = [];
      for (let i = 0; i < BASELINE_REQUESTS; i++) {
        const { ms, res } = await timed(baselineUrl);
        if (res.status !== 200) throw new Error(`baseline answered ${res.status}`);
        baselineMs.push(ms);
      }
      const oursSequentialMs: number[] = [];
      for (let i = 0; i < 20; i++) oursSequentialMs.push((await timed(oursUrl)).ms);
      log(
        `one request at a time: ours median ${median(oursSequentialMs).toFixed(0)} ms, direct SQL median ${median(baselineMs).toFixed(0)} ms`,
      );

      const runs: MeasuredLoad[] = [];
      for (let round = 0; round < rounds; round++) {
        log(
          `ours${rounds > 1 ? ` (round ${round + 1}/${rounds})` : ''}: ${warmupSec} s warm-up + ${durationSec} s, ${connections} connections…`,
        );
        runs.push(
          await warmUpAndMeasure({
            url: oursUrl + query,
            headers: { 'x-api-key': key.key },
            connections,
            warmupSec,
            durationSec,
          }),
        );
      }
      const ours = medianLoad(runs);
      notes.push(
        `baseline: bare Fastify 5 + pg Pool computing the same report from orders and order_line_items with aggregate SQL ` +
          `(4 queries in parallel), ${BASELINE_REQUESTS} requests one at a time (under load it would only time out): ` +
          baselineMs.map((ms) => `${ms.toFixed(0)} ms`).join(', '),
        `ours one request at a time (20): median ${median(oursSequentialMs).toFixed(1)} ms, max ${Math.max(...oursSequentialMs).toFixed(1)} ms`,
        ...runs.map(
          (r, i) =>
            `ours${rounds > 1 ? ` round ${i + 1}` : ''} under load: ${r.totalRequests} requests, ${r.requestsPerSec.toFixed(1)} req/s, ` +
            `p50 ${r.latencyP50Ms} ms, p99 ${r.latencyP99Ms} ms, max ${r.latencyMaxMs} ms, server CPU ${r.serverCpuUsPerRequest.toFixed(0)} µs/request, ` +
            `load average before ${r.loadAverageBefore.toFixed(2)} on ${os.cpus().length} CPUs`,
        ),
        `load: autocannon in a child process, ${connections} connections, ${warmupSec} s warm-up then ${durationSec} s; the server, PostgreSQL and autocannon share the CPUs`,
      );

      const label = 'the same report by direct aggregate SQL (bare Fastify + pg), one request at a time';
      return {
        notes,
        metrics: [
          metric({
            name: 'latency p99 under load',
            unit: 'ms',
            ours: ours.latencyP99Ms,
            target: { on: 'value', op: '<', value: P99_TARGET_MS },
          }),
          metric({ name: 'throughput', unit: 'req/s', ours: ours.requestsPerSec }),
          metric({
            name: 'latency, one request at a time (median)',
            unit: 'ms',
            ours: median(oursSequentialMs),
            baseline: median(baselineMs),
            baselineLabel: label,
          }),
        ],
      };
    } finally {
      await cleanUp(log, release);
    }
  },
};
