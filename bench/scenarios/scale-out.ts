import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { MemoryRateLimitStore } from '../../src/platform/http/rate-limit.js';
import { seedStore } from '../../src/seed/seed.js';
import { type ApiProcess, startApiProcess } from '../lib/api-process.js';
import { insertCatalogue } from '../lib/catalogue.js';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { busyShare, cpuSecondsOf, machineCpu } from '../lib/cpu-time.js';
import { freshBenchDatabase } from '../lib/database.js';
import { getJson } from '../lib/http.js';
import { type LoadResult, runLoad } from '../lib/load.js';
import { envNumber, median } from '../lib/rounds.js';
import { metric, type Scenario } from '../lib/scenario.js';

const PRODUCTS = 10_000;
/** Asked of the seed; it adds customers until the orders have enough distinct buyers. */
const CUSTOMERS = 1_000;
const ORDERS = 100_000;
const SLUG = 'bench-scale';
/** openDatabase's default pool size: what each `serve` process opens. */
const POOL_SIZE = 10;

interface ReadPath {
  label: string;
  path: string;
  /** The merchant API needs the key; the storefront is public. */
  merchant: boolean;
  /** Items a full first page holds. */
  pageSize: number;
}

/** The two read paths of the issue: the storefront-products query and the orders-list first page. */
const READ_PATHS: ReadPath[] = [
  {
    label: 'storefront listing',
    path: `/api/storefront/${SLUG}/products?limit=20&sort=newest`,
    merchant: false,
    pageSize: 20,
  },
  { label: 'order reads', path: '/api/v1/orders?limit=50', merchant: true, pageSize: 50 },
];

interface Seeded {
  apiKey: string;
  customers: number;
  imageRows: number;
  seedSeconds: number;
}

/**
 * Migrates the fresh database and fills one store: the catalogue in bulk (the products service makes
 * one product at a time, minutes for ten thousand), then customers and orders through `seedStore`,
 * the function `emporium seed` calls, drawing the orders from that catalogue. The in-process app used
 * for this is closed before any server starts, so the bench process serves nothing.
 */
async function seedDatabase(url: string, dataDir: string): Promise<Seeded> {
  const started = performance.now();
  const handle = openDatabase(url, { max: 4 });
  try {
    await migrateToLatest(handle.db);
    const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url, DATA_DIR: dataDir, PORT: '0' });
    const app = await buildApp({
      config,
      db: handle.db,
      logger: pino({ level: 'silent' }),
      rateLimitStore: new MemoryRateLimitStore(),
    });
    try {
      const store = await app.services.stores.createStore({ slug: SLUG, name: 'Bench Scale-out' });
      const { imageRows } = await insertCatalogue(handle.db, store.id, PRODUCTS, (key) =>
        app.mediaStorage.publicUrl(key),
      );
      const seeded = await seedStore(
        app.services,
        app.mediaStorage,
        { storeSlug: SLUG, products: 0, customers: CUSTOMERS, orders: ORDERS },
        handle.db,
      );
      // A steady state rather than whatever autovacuum has reached: visibility map set, statistics fresh.
      await handle.pool.query(
        'VACUUM (ANALYZE) products, product_media, customers, orders, order_line_items, order_fulfillments',
      );
      const key = await app.services.stores.createApiKey(store.id, {
        name: 'bench',
        scopes: ['orders:read'],
      });
      return {
        apiKey: key.key,
        customers: seeded.customers,
        imageRows,
        seedSeconds: (performance.now() - started) / 1000,
      };
    } finally {
      await app.server.close();
    }
  } finally {
    await handle.close();
  }
}

/** Every process must answer the path with a full page, and all of them the same data. */
async function checkSameAnswer(apis: ApiProcess[], read: ReadPath, headers: Record<string, string>) {
  const answers = await Promise.all(apis.map((api) => getJson(api.url + read.path, headers)));
  for (const [i, answer] of answers.entries()) {
    const body = answer.body as { data?: unknown[] };
    if (answer.status !== 200 || body.data?.length !== read.pageSize) {
      throw new Error(
        `correctness check (${read.label}, ${apis[i]?.name}): ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
      );
    }
    if (!isDeepStrictEqual(answer.body, answers[0]?.body)) {
      throw new Error(
        `correctness check (${read.label}): ${apis[i]?.name} and ${apis[0]?.name} answer differently`,
      );
    }
  }
}

interface ProcessFigures {
  name: string;
  connections: number;
  load: LoadResult;
  /** CPU time of the server process over the measured run, as a share of one CPU. */
  cpuShare: number;
}

interface Phase {
  processes: ProcessFigures[];
  loadAverageBefore: number;
  /** Busy share of all the machine's CPUs over the measured run (servers, PostgreSQL, autocannon, others). */
  machineBusy: number;
  requestsPerSec: number;
  /** The worse of the processes' p99s: an upper bound of the p99 of all requests together. */
  latencyP99Ms: number;
}

/** A load generator failing on anything but 2xx: a fast 429 or 500 is not throughput. */
function check(label: string, r: LoadResult) {
  if (r.non2xx || r.errors || r.timeouts || r.totalRequests === 0) {
    throw new Error(
      `${label}: ${r.totalRequests} requests, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts; statuses ${JSON.stringify(r.statusCounts)}`,
    );
  }
}

/**
 * The connections split evenly over the processes, each process loaded by an autocannon child of its
 * own, all at once: a warm-up whose figures are discarded, then the measured run.
 */
async function measurePhase(
  apis: ApiProcess[],
  read: ReadPath,
  headers: Record<string, string>,
  options: { connections: number; warmupSec: number; durationSec: number },
): Promise<Phase> {
  const shares = apis.map(
    (_, i) => Math.floor(options.connections / apis.length) + (i < options.connections % apis.length ? 1 : 0),
  );
  const loadAll = (durationSec: number) =>
    Promise.all(
      apis.map((api, i) =>
        runLoad({ url: api.url + read.path, headers, connections: shares[i] as number, durationSec }),
      ),
    );
  const loadAverageBefore = os.loadavg()[0] ?? 0;
  const warmups = await loadAll(options.warmupSec);
  for (const [i, r] of warmups.entries()) check(`warm-up of ${apis[i]?.name} (${read.label})`, r);
  const machineBefore = machineCpu();
  const cpuBefore = apis.map((api) => cpuSecondsOf(api.pid));
  const loads = await loadAll(options.durationSec);
  const cpuAfter = apis.map((api) => cpuSecondsOf(api.pid));
  const machineBusy = busyShare(machineBefore, machineCpu());
  for (const [i, r] of loads.entries()) check(`measured run of ${apis[i]?.name} (${read.label})`, r);
  const processes = apis.map((api, i) => ({
    name: api.name,
    connections: shares[i] as number,
    load: loads[i] as LoadResult,
    cpuShare: ((cpuAfter[i] as number) - (cpuBefore[i] as number)) / options.durationSec,
  }));
  return {
    processes,
    loadAverageBefore,
    machineBusy,
    requestsPerSec: processes.reduce((sum, p) => sum + p.load.requestsPerSec, 0),
    latencyP99Ms: Math.max(...processes.map((p) => p.load.latencyP99Ms)),
  };
}

function describePhase(read: ReadPath, phase: Phase, round: string): string {
  const perProcess = phase.processes.map(
    (p) =>
      `${p.name} ${p.connections} conn: ${p.load.totalRequests} requests, ${p.load.requestsPerSec.toFixed(1)} req/s, ` +
      `p50 ${p.load.latencyP50Ms} ms, p99 ${p.load.latencyP99Ms} ms, max ${p.load.latencyMaxMs} ms, CPU ${(p.cpuShare * 100).toFixed(0)}% of one core`,
  );
  return (
    `${read.label}, ${phase.processes.length} process${phase.processes.length > 1 ? 'es' : ''}${round}: ` +
    `${phase.requestsPerSec.toFixed(1)} req/s in all, load average before ${phase.loadAverageBefore.toFixed(2)}, machine CPUs ${(phase.machineBusy * 100).toFixed(0)}% busy — ${perProcess.join('; ')}`
  );
}

export const scenario: Scenario = {
  name: 'scale-out',
  description: `throughput of 1 vs 2 \`emporium serve --no-worker\` processes on one database: storefront listing and GET /api/v1/orders?limit=50 over ${PRODUCTS.toLocaleString('en-US')} products and ${ORDERS.toLocaleString('en-US')} orders`,

  async run(log) {
    const warmupSec = envNumber('BENCH_WARMUP', 3);
    const durationSec = envNumber('BENCH_DURATION', 10);
    const rounds = Math.round(envNumber('BENCH_ROUNDS', 1));
    // 50, as storefront-products (whose p99 target is set at that concurrency), unless told otherwise.
    const connections = Math.round(envNumber('BENCH_CONNECTIONS', 50));
    if (connections < 2)
      throw new Error('BENCH_CONNECTIONS must be at least 2: the connections are split over 2 processes');
    const notes: string[] = [];
    const { release, onExit } = cleanUpStack();

    try {
      const fresh = await freshBenchDatabase(log, notes, onExit, ', a fresh database dropped at the end');
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-bench-scale-'));
      onExit('temporary DATA_DIRs', async () => fs.rmSync(tmp, { recursive: true, force: true }));
      const dataDir = (name: string) => {
        const dir = path.join(tmp, name);
        fs.mkdirSync(dir);
        return dir;
      };

      log(`seeding ${PRODUCTS} products and ${ORDERS.toLocaleString('en-US')} orders…`);
      const seeded = await seedDatabase(fresh.url, dataDir('seed'));
      log(`seeded in ${seeded.seedSeconds.toFixed(0)} s`);
      notes.push(
        `one store: ${PRODUCTS.toLocaleString('en-US')} active products with ${seeded.imageRows.toLocaleString('en-US')} image rows ` +
          `(bulk rows as storefront-products makes them), ${seeded.customers.toLocaleString('en-US')} customers and ` +
          `${ORDERS.toLocaleString('en-US')} orders from \`seedStore\` (what \`emporium seed\` runs; it adds customers until ` +
          `the orders have enough buyers), migrated and seeded in ${seeded.seedSeconds.toFixed(0)} s, then VACUUM ANALYZE`,
      );

      const appSecret = randomBytes(24).toString('hex');
      const apis: ApiProcess[] = [];
      for (const name of ['api-1', 'api-2']) {
        const api = await startApiProcess({
          name,
          databaseUrl: fresh.url,
          appSecret,
          dataDir: dataDir(name),
          // Per-process memory counters (no REDIS_URL): the limit is raised so it never answers 429.
          env: { RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'warn' },
        });
        onExit(name, async () => {
          const code = await api.stop();
          if (code !== 0) log(`${name} exited with ${code}:\n${api.output().slice(-2000)}`);
        });
        apis.push(api);
      }
      log(`started ${apis.map((a) => `${a.name} (pid ${a.pid}, ${a.url})`).join(', ')}`);

      const phases = new Map<string, { one: Phase[]; two: Phase[] }>();
      for (const read of READ_PATHS) {
        const headers: Record<string, string> = read.merchant ? { 'x-api-key': seeded.apiKey } : {};
        await checkSameAnswer(apis, read, headers);
        const runs = { one: [] as Phase[], two: [] as Phase[] };
        phases.set(read.label, runs);
        for (let round = 0; round < rounds; round++) {
          // Odd rounds measure 2 processes first, so neither always gets the warmer half.
          const order = round % 2 === 0 ? (['one', 'two'] as const) : (['two', 'one'] as const);
          for (const which of order) {
            const serving = which === 'one' ? apis.slice(0, 1) : apis;
            const roundLabel = rounds > 1 ? ` (round ${round + 1}/${rounds})` : '';
            log(
              `${read.label}, ${serving.length} process(es)${roundLabel}: ${warmupSec} s warm-up + ${durationSec} s, ${connections} connections…`,
            );
            const phase = await measurePhase(serving, read, headers, { connections, warmupSec, durationSec });
            log(`  ${describePhase(read, phase, '')}`);
            runs[which].push(phase);
          }
        }
      }

      notes.push(
        `servers: ${apis.length} × \`node --import tsx src/cli.ts serve --no-worker\` on DATABASE_URL (the fresh database), ` +
          `each with its own DATA_DIR, a pool of ${POOL_SIZE} (so ${POOL_SIZE * apis.length} database connections with both), ` +
          'in-memory rate-limit counters raised to 1e9/min, LOG_LEVEL warn (nothing is logged unless something goes wrong)',
        `load: ${connections} connections in all (BENCH_CONNECTIONS, 50 unless set), ${warmupSec} s warm-up then ${durationSec} s measured; ` +
          `1 process: one autocannon child with all ${connections} to api-1 while api-2 stays idle; ` +
          `2 processes: one autocannon child per process, each with half the connections, running at the same time` +
          `${rounds > 1 ? `; ${rounds} rounds alternating which goes first (medians shown)` : ''}`,
        'throughput with 2 processes is the sum of both; its p99 is the worse of the two p99s, an upper bound of the p99 of all ' +
          'requests together (autocannon reports percentiles, not histograms that could be merged)',
        `everything shares the same ${os.cpus().length} CPUs: PostgreSQL (if local), both servers, the autocannon children and ` +
          'the bench process; with 2 CPUs near-linear scaling is not expected, the figure shows what a second process adds here',
        ...READ_PATHS.flatMap((read) => {
          const runs = phases.get(read.label) as { one: Phase[]; two: Phase[] };
          return [...runs.one, ...runs.two].map((phase, i, all) =>
            describePhase(read, phase, rounds > 1 ? ` round ${(i % (all.length / 2)) + 1}` : ''),
          );
        }),
        `(load average: the machine's 1-minute figure on ${os.cpus().length} CPUs; well above ~1 means other work was competing. ` +
          'Machine CPUs busy: the share of all CPU time in use during the measured run, by anything; near 100% means the ' +
          'machine, not the server, was the limit. CPU of one core: the server process alone)',
      );

      const baselineLabel = '1 API process';
      return {
        notes,
        metrics: READ_PATHS.flatMap((read) => {
          const runs = phases.get(read.label) as { one: Phase[]; two: Phase[] };
          const of = (list: Phase[], pick: (p: Phase) => number) => median(list.map(pick));
          return [
            metric({
              name: `${read.label}: 2 API processes, throughput`,
              unit: 'req/s',
              ours: of(runs.two, (p) => p.requestsPerSec),
              baseline: of(runs.one, (p) => p.requestsPerSec),
              baselineLabel,
            }),
            metric({
              name: `${read.label}: 2 API processes, latency p99`,
              unit: 'ms',
              ours: of(runs.two, (p) => p.latencyP99Ms),
              baseline: of(runs.one, (p) => p.latencyP99Ms),
              baselineLabel,
            }),
          ];
        }),
      };
    } finally {
      await cleanUp(log, release);
    }
  },
};
