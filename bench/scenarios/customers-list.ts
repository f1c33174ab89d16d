import os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import Fastify from 'fastify';
import pg from 'pg';
import { listCustomers } from '../../src/modules/customers/customers.repository.js';
import { currencyDecimals, toDecimalNumber } from '../../src/platform/money.js';
import { sampleCustomer } from '../../src/seed/sample-data.js';
import { capturingDb } from '../lib/capture-sql.js';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { getJson, listenOnFreePort } from '../lib/http.js';
import { startInProcessApp } from '../lib/in-process-app.js';
import { type MeasuredLoad, warmUpAndMeasure } from '../lib/load.js';
import { metric, type Scenario } from '../lib/scenario.js';

const CUSTOMERS = 10_000;
const BATCH = 1000;
/** openDatabase's default pool size, which the app gets in `npm start`; the baseline gets the same. */
const POOL_SIZE = 10;
const PATH = '/api/v1/customers?limit=20';

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

/** Per figure, the median over the rounds (the value itself with one round). */
function medianRun(runs: MeasuredLoad[]): MeasuredLoad {
  const median = (pick: (r: MeasuredLoad) => number) => {
    const values = runs.map(pick).sort((a, b) => a - b);
    const mid = Math.floor(values.length / 2);
    return values.length % 2
      ? (values[mid] as number)
      : ((values[mid - 1] as number) + (values[mid] as number)) / 2;
  };
  const first = runs[0] as MeasuredLoad;
  return {
    ...first,
    requestsPerSec: median((r) => r.requestsPerSec),
    latencyP99Ms: median((r) => r.latencyP99Ms),
    serverCpuUsPerRequest: median((r) => r.serverCpuUsPerRequest),
    serverEventLoopUtilization: median((r) => r.serverEventLoopUtilization),
  };
}

/**
 * The SQL our repository sends for one list request, captured by running `listCustomers` itself on a
 * Kysely instance whose log records each compiled query: the baseline then runs exactly that text.
 */
async function captureRepositorySql(pool: pg.Pool, storeId: string) {
  const { db: capturing, queries } = capturingDb(pool);
  await listCustomers(capturing, storeId, {}, { offset: 0, limit: 20 });
  const page = queries.find((q) => /\blimit\b/i.test(q.sql));
  const count = queries.find((q) => /\bcount\(/i.test(q.sql));
  if (queries.length !== 2 || !page || !count) {
    throw new Error(`expected a page query and a count query, got: ${queries.map((q) => q.sql).join(' | ')}`);
  }
  // The baseline binds [store id, limit + 1, offset] and [store id]: make sure that is the order used
  // (the repository reads one row more than the page, to know whether a next page exists).
  if (
    !isDeepStrictEqual(page.parameters, [storeId, 21, 0]) ||
    !isDeepStrictEqual(count.parameters, [storeId])
  ) {
    throw new Error(
      `unexpected parameters: page ${JSON.stringify(page.parameters)}, count ${JSON.stringify(count.parameters)}`,
    );
  }
  return { pageSql: page.sql, countSql: count.sql };
}

interface CustomerRecord {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  orders_count: number;
  total_spent: number;
  addresses: unknown[];
  created_at: Date;
  updated_at: Date;
}

/**
 * The floor: bare Fastify (no schemas, hooks or plugins) and a pg Pool, running the repository's two
 * queries in parallel for a fixed store and building the same envelope by hand. No authentication.
 */
async function buildBaseline(
  pool: pg.Pool,
  store: { id: string; currency: string },
  sql: { pageSql: string; countSql: string },
) {
  const storeId = store.id;
  const decimals = currencyDecimals(store.currency);
  const server = Fastify();
  server.get('/api/v1/customers', async (request) => {
    const query = request.query as { page?: string; limit?: string };
    const limit = Number(query.limit ?? 20);
    const page = Number(query.page ?? 1);
    const [rows, count] = await Promise.all([
      pool.query<CustomerRecord>(sql.pageSql, [storeId, limit + 1, (page - 1) * limit]),
      pool.query<{ total: number | string }>(sql.countSql, [storeId]),
    ]);
    const total = Number(count.rows[0]?.total ?? 0);
    const totalPages = Math.ceil(total / limit);
    return {
      data: rows.rows.slice(0, limit).map((r) => ({
        id: r.id,
        email: r.email,
        first_name: r.first_name,
        last_name: r.last_name,
        phone: r.phone,
        orders_count: r.orders_count,
        total_spent: toDecimalNumber(r.total_spent, decimals),
        addresses: r.addresses,
        created_at: r.created_at.toISOString(),
        updated_at: r.updated_at.toISOString(),
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

/** Both servers must answer the same request with the same data before either is measured. */
async function checkSameAnswer(oursUrl: string, baselineUrl: string, apiKey: string) {
  const headers = { 'x-api-key': apiKey };
  const [ours, baseline] = await Promise.all([
    getJson(oursUrl + PATH, headers),
    getJson(baselineUrl + PATH, headers),
  ]);
  if (ours.status !== 200 || baseline.status !== 200) {
    throw new Error(
      `correctness check: status ours ${ours.status} ${JSON.stringify(ours.body).slice(0, 300)}, baseline ${baseline.status}`,
    );
  }
  const oursBody = ours.body as { data: unknown[]; meta: { pagination: Record<string, unknown> } };
  const baselineBody = baseline.body as { data: unknown[]; meta: unknown };
  if (!Array.isArray(oursBody.data) || oursBody.data.length !== 20) {
    throw new Error(`correctness check: ours returned ${JSON.stringify(oursBody).slice(0, 300)}`);
  }
  if (!isDeepStrictEqual(oursBody.data, baselineBody.data)) {
    const i = oursBody.data.findIndex((item, n) => !isDeepStrictEqual(item, baselineBody.data[n]));
    throw new Error(
      `correctness check FAILED: the data arrays differ at index ${i}:\n  ours:     ${JSON.stringify(oursBody.data[i])}\n  baseline: ${JSON.stringify(baselineBody.data?.[i])}`,
    );
  }
  // The cursor of the next page is ours alone: the classic list has none.
  const { next_cursor: _cursor, ...oursPagination } = oursBody.meta.pagination;
  if (!isDeepStrictEqual({ pagination: oursPagination }, baselineBody.meta)) {
    throw new Error(
      `correctness check FAILED: meta differs: ours ${JSON.stringify(oursBody.meta)}, baseline ${JSON.stringify(baselineBody.meta)}`,
    );
  }
}

export const scenario: Scenario = {
  name: 'customers-list',
  description: `GET ${PATH} over ${CUSTOMERS.toLocaleString('en-US')} customers: the real app vs bare Fastify + pg`,

  async run(log) {
    const warmupSec = envNumber('BENCH_WARMUP', 3);
    const durationSec = envNumber('BENCH_DURATION', 10);
    const connections = envNumber('BENCH_CONNECTIONS', 10);
    const rounds = Math.round(envNumber('BENCH_ROUNDS', 1));
    const notes: string[] = [];
    const { release, onExit } = cleanUpStack();

    try {
      const { fresh, handle, app } = await startInProcessApp(log, notes, onExit, POOL_SIZE);

      const store = await app.services.stores.createStore({ slug: 'bench', name: 'Bench Store' });
      const key = await app.services.stores.createApiKey(store.id, { name: 'bench', scopes: 'all' });
      const seedStart = performance.now();
      const base = Date.UTC(2026, 0, 1);
      for (let offset = 0; offset < CUSTOMERS; offset += BATCH) {
        const batch = Array.from({ length: Math.min(BATCH, CUSTOMERS - offset) }, (_, i) =>
          // Distinct, increasing creation times: the newest-first order is the same for both servers.
          sampleCustomer(offset + i, new Date(base + (offset + i) * 1000)),
        );
        await app.services.customers.createMany(store.id, batch);
      }
      // A steady state rather than whatever autovacuum has reached: visibility map set, statistics fresh.
      await handle.pool.query('VACUUM (ANALYZE) customers');
      log(
        `seeded ${CUSTOMERS} customers in ${Math.round(performance.now() - seedStart)} ms (then VACUUM ANALYZE)`,
      );

      const sql = await captureRepositorySql(handle.pool, store.id);
      notes.push(
        'baseline SQL: captured from our repository (listCustomers run once on a logging Kysely, compiled text reused verbatim)',
        `  page:  ${sql.pageSql}`,
        `  count: ${sql.countSql}`,
      );

      const baselinePool = new pg.Pool({ connectionString: fresh.url, max: POOL_SIZE });
      onExit('baseline pool', () => baselinePool.end());
      const baseline = await buildBaseline(baselinePool, store, sql);
      onExit('baseline server', () => baseline.close());
      const oursUrl = await listenOnFreePort(app.server);
      const baselineUrl = await listenOnFreePort(baseline);
      await checkSameAnswer(oursUrl, baselineUrl, key.key);
      log('correctness check passed: identical data and meta from both servers');

      const load = { headers: { 'x-api-key': key.key }, connections, warmupSec, durationSec };
      const runs: Record<'ours' | 'baseline', MeasuredLoad[]> = { ours: [], baseline: [] };
      for (let round = 0; round < rounds; round++) {
        // With several rounds the order alternates (ours first, then baseline first, …).
        const order = round % 2 === 0 ? (['ours', 'baseline'] as const) : (['baseline', 'ours'] as const);
        for (const which of order) {
          log(
            `${which}${rounds > 1 ? ` (round ${round + 1}/${rounds})` : ''}: ${warmupSec} s warm-up + ${durationSec} s, ${connections} connections…`,
          );
          const url = (which === 'ours' ? oursUrl : baselineUrl) + PATH;
          runs[which].push(await warmUpAndMeasure({ ...load, url }));
        }
      }
      const ours = medianRun(runs.ours);
      const bare = medianRun(runs.baseline);
      notes.push(
        `load: autocannon in a child process, ${connections} connections, ${warmupSec} s warm-up then ${durationSec} s measured` +
          `${rounds > 1 ? `, ${rounds} alternating rounds (medians shown)` : ''}; ` +
          `both servers in the bench process, pools of ${POOL_SIZE}, rate limit 1e9/min, LOG_LEVEL silent`,
        'the servers, PostgreSQL (if local) and autocannon share the same CPUs; both servers are measured under the same conditions',
        ...(['ours', 'baseline'] as const).flatMap((which) =>
          runs[which].map(
            (r, i) =>
              `${which}${rounds > 1 ? ` round ${i + 1}` : ''}: ${r.totalRequests} requests, ${r.requestsPerSec.toFixed(1)} req/s, ` +
              `p50 ${r.latencyP50Ms} ms, p99 ${r.latencyP99Ms} ms, server CPU user ${r.serverCpuUserUsPerRequest.toFixed(0)} + ` +
              `system ${r.serverCpuSystemUsPerRequest.toFixed(0)} µs/request, load average before ${r.loadAverageBefore.toFixed(2)}`,
          ),
        ),
        `(load average: the machine's 1-minute figure on ${os.cpus().length} CPUs; well above ~1 means other work was competing)`,
      );

      const label = 'bare Fastify 5 + pg Pool, same SQL, no auth/validation/schemas';
      return {
        notes,
        metrics: [
          metric({
            name: 'throughput',
            unit: 'req/s',
            ours: ours.requestsPerSec,
            baseline: bare.requestsPerSec,
            baselineLabel: label,
            target: { on: 'ratio', op: '>=', value: 0.6 },
          }),
          metric({
            name: 'latency p99',
            unit: 'ms',
            ours: ours.latencyP99Ms,
            baseline: bare.latencyP99Ms,
            baselineLabel: label,
          }),
          metric({
            name: 'server CPU per request',
            unit: 'µs',
            ours: ours.serverCpuUsPerRequest,
            baseline: bare.serverCpuUsPerRequest,
            baselineLabel: label,
          }),
          metric({
            name: 'server event-loop utilisation',
            unit: '%',
            // % points both ways; here it is event-loop time spent per the load, a cost.
            better: 'lower',
            ours: ours.serverEventLoopUtilization * 100,
            baseline: bare.serverEventLoopUtilization * 100,
            baselineLabel: label,
          }),
        ],
      };
    } finally {
      await cleanUp(log, release);
    }
  },
};
