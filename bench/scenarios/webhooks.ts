import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pino from 'pino';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type Db, openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import type { RequestContext } from '../../src/platform/http/context.js';
import { MemoryRateLimitStore } from '../../src/platform/http/rate-limit.js';
import { newId } from '../../src/platform/ids.js';
import { recordEvent } from '../../src/platform/outbox.js';
import { sampleEventData } from '../lib/bare-webhook-sender.js';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { freshBenchDatabase } from '../lib/database.js';
import { envNumber } from '../lib/rounds.js';
import { metric, type Scenario } from '../lib/scenario.js';
import { startWorkerProcess, type WorkerRun } from '../lib/worker-process.js';

/**
 * Webhook delivery on real `emporium worker` processes (node --import tsx src/cli.ts worker) against a
 * local receiver in this process:
 * - throughput: EVENTS events recorded beforehand, then 1 (or 2) workers started; from the worker's
 *   "started" log line to the last distinct delivery id received;
 * - latency: one running worker, events recorded one per transaction at RATE/s; receipt time minus the
 *   body's `timestamp` (the event's `created_at`, i.e. its transaction's start, ≈ its commit here).
 * Baseline: a bare Node loop (bench/lib/bare-webhook-sender.ts) posting the same number of signed
 * bodies to the same receiver with the worker's concurrency and connection pool.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** webhookDeliveryJobs' default `concurrency` and createSafeFetch's connections per origin. */
const WORKER_CONCURRENCY = 64;
const WORKER_CONNECTIONS = 16;
/** Delivered before the timed runs, untimed. */
const WARMUP_EVENTS = 2_000;
const APP_SECRET = 'bench-app-secret-0123456789abcdef0123456789';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nowMs = () => performance.timeOrigin + performance.now();

// ── The receiver ───────────────────────────────────────────────────────────────────────────────

interface Receipt {
  id: string;
  at: number;
  body: string;
}

/** Answers 200 at once; remembers every request's delivery id, arrival time and body. */
async function startReceiver() {
  let receipts: Receipt[] = [];
  let distinct = new Set<string>();
  let waiter: { count: number; resolve: () => void } | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = nowMs();
      const id = String(req.headers['x-webhook-id']);
      receipts.push({ id, at, body: Buffer.concat(chunks).toString('utf8') });
      distinct.add(id);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      if (waiter && distinct.size >= waiter.count) {
        waiter.resolve();
        waiter = undefined;
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get receipts() {
      return receipts;
    },
    get distinct() {
      return distinct.size;
    },
    reset() {
      receipts = [];
      distinct = new Set();
    },
    /** Resolves once `count` distinct delivery ids have arrived. */
    async waitForDistinct(count: number, timeoutMs: number, what: string) {
      if (distinct.size >= count) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => {
          waiter = { count, resolve };
        }),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`${what}: ${distinct.size} of ${count} received after ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]).finally(() => clearTimeout(timer));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;
type WebhookCreateInput = Parameters<App['services']['webhooks']['create']>[1];

// ── Worker processes ───────────────────────────────────────────────────────────────────────────

/** Spawns `emporium worker` as `npm run emporium -- worker` does, and waits for its start line. */
function startWorker(databaseUrl: string, logFile: string): Promise<WorkerRun> {
  return startWorkerProcess({
    databaseUrl,
    logFile,
    env: { APP_SECRET, ALLOW_PRIVATE_URLS: 'true' },
    unset: ['WEBHOOK_RETRY_SCHEDULE', 'WEBHOOK_TIMEOUT_MS'],
  });
}

// ── The bare sender ────────────────────────────────────────────────────────────────────────────

function runBareSender(input: {
  url: string;
  count: number;
  secret: string;
}): Promise<{ ms: number; cpuMs: number }> {
  const settings = { ...input, concurrency: WORKER_CONCURRENCY, connections: WORKER_CONNECTIONS };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/bare-webhook-sender.ts'], {
      cwd: root,
      env: { ...process.env, BENCH_SENDER: JSON.stringify(settings) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`bare sender exited with ${code}: ${err.trim()}`));
      const result = JSON.parse(out) as { ms: number; cpuMs: number; sent: number; failed: number };
      if (result.failed) return reject(new Error(`bare sender: ${result.failed} requests failed`));
      resolve(result);
    });
  });
}

// ── Figures ────────────────────────────────────────────────────────────────────────────────────

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function commitsOf(db: Db, database: string): Promise<number> {
  const { rows } = await sql<{ commits: string }>`
    SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = ${database}`.execute(db);
  return Number(rows[0]?.commits ?? 0);
}

async function pendingOf(db: Db, webhookId: string): Promise<number> {
  const { rows } = await sql<{ pending: string }>`
    SELECT count(*) AS pending FROM webhook_deliveries
    WHERE webhook_id = ${webhookId} AND status = 'pending'`.execute(db);
  return Number(rows[0]?.pending ?? 0);
}

async function waitUntilRecorded(db: Db, webhookId: string, expected: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await sql<{ total: string }>`
      SELECT count(*) AS total FROM webhook_deliveries WHERE webhook_id = ${webhookId}`.execute(db);
    if (Number(rows[0]?.total) === expected && (await pendingOf(db, webhookId)) === 0) return;
    if (Date.now() > deadline)
      throw new Error(`attempts of ${webhookId} not all recorded in ${timeoutMs} ms`);
    await sleep(50);
  }
}

export const scenario: Scenario = {
  name: 'webhooks',
  description:
    'webhook deliveries/s with 1 and 2 `emporium worker` processes, and event-to-first-attempt latency, vs a bare signed-POST loop',

  async run(log) {
    const events = Math.round(envNumber('BENCH_WEBHOOK_EVENTS', 20_000));
    const rate = envNumber('BENCH_WEBHOOK_RATE', 200);
    const latencySec = envNumber('BENCH_DURATION', 10);
    const notes: string[] = [];
    const { release, onExit } = cleanUpStack();
    const workersRunning = new Set<WorkerRun>();

    try {
      const fresh = await freshBenchDatabase(log, notes, onExit);
      const handle = openDatabase(fresh.url, { max: 8 });
      onExit('bench pool', () => handle.close());
      await migrateToLatest(handle.db);
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-bench-webhooks-'));
      onExit('data dir', async () => fs.rmSync(dataDir, { recursive: true, force: true }));
      onExit('workers', () => Promise.all([...workersRunning].map((w) => w.stop())));

      const config = loadConfig({
        LOG_LEVEL: 'silent',
        DATABASE_URL: fresh.url,
        DATA_DIR: dataDir,
        APP_SECRET,
        ALLOW_PRIVATE_URLS: 'true',
      });
      const app = await buildApp({
        config,
        db: handle.db,
        logger: pino({ level: 'silent' }),
        rateLimitStore: new MemoryRateLimitStore(),
      });
      onExit('app', () => app.server.close());
      const receiver: Receiver = await startReceiver();
      onExit('receiver', () => receiver.close());

      /** A store of its own with a webhook on the receiver for every event. */
      const storeWithWebhook = async (slug: string) => {
        const store = await app.services.stores.createStore({ slug, name: slug });
        const ctx: RequestContext = {
          storeId: store.id,
          actor: { kind: 'system', id: 'bench' },
          source: 'system',
          scopes: [],
        };
        const { row, secret } = await app.services.webhooks.create(ctx, {
          url: `${receiver.url}/${slug}`,
          events: ['*'] as WebhookCreateInput['events'],
        });
        return { storeId: store.id, webhookId: row.id, secret };
      };

      /** `count` committed events, in multi-row inserts (what the outbox holds after a busy spell). */
      const preRecord = async (storeId: string, count: number) => {
        for (let from = 0; from < count; from += 1000) {
          const rows = Array.from({ length: Math.min(1000, count - from) }, (_, i) => ({
            id: newId(),
            store_id: storeId,
            name: 'order.created',
            data: JSON.stringify(sampleEventData(from + i)),
            created_at: new Date(),
          }));
          await handle.db.insertInto('events').values(rows).execute();
        }
      };

      // Baseline: the bare loop, same receiver, same number of bodies.
      log(`baseline: bare sender posting ${events} signed bodies (${WORKER_CONCURRENCY} in flight)…`);
      receiver.reset();
      const bare = await runBareSender({ url: `${receiver.url}/bare`, count: events, secret: 'whsec_AAAA' });
      if (receiver.distinct !== events) throw new Error(`bare sender: ${receiver.distinct} received`);
      const bareRate = events / (bare.ms / 1000);
      log(
        `baseline: ${bareRate.toFixed(0)} deliveries/s (${bare.ms.toFixed(0)} ms, sender CPU ${((bare.cpuMs * 1000) / events).toFixed(0)} µs/delivery)`,
      );

      /** Vacuumed, with planner statistics: the steady state autovacuum keeps a live database in. */
      const settle = () =>
        sql`VACUUM (ANALYZE) events, webhooks, webhook_deliveries, webhook_attempts`.execute(handle.db);

      const throughput = async (workers: number) => {
        const { storeId, webhookId } = await storeWithWebhook(`throughput-${workers}`);
        await preRecord(storeId, events);
        await settle();
        receiver.reset();
        const load = os.loadavg()[0] ?? 0;
        const commitsBefore = await commitsOf(handle.db, fresh.name);
        log(`${workers} worker(s): ${events} events recorded; starting the worker process(es)…`);
        const started = await Promise.all(
          Array.from({ length: workers }, (_, i) =>
            startWorker(fresh.url, path.join(dataDir, `worker-${workers}-${i}.log`)),
          ),
        );
        for (const w of started) workersRunning.add(w);
        const cpuBefore = started.map((w) => w.cpuMs());
        const t0 = Math.min(...started.map((w) => w.startedAt));
        const startGap = Math.max(...started.map((w) => w.startedAt)) - t0;
        await receiver.waitForDistinct(events, 300_000, `${workers} worker(s)`);
        const firstArrival = new Map<string, number>();
        for (const r of receiver.receipts) if (!firstArrival.has(r.id)) firstArrival.set(r.id, r.at);
        const lastAt = Math.max(...firstArrival.values());
        const seconds = (lastAt - t0) / 1000;
        await waitUntilRecorded(handle.db, webhookId, events, 60_000);
        const recordedLagMs = Date.now() - lastAt;
        const cpuMs = started.reduce((sum, w, i) => sum + w.cpuMs() - (cpuBefore[i] ?? 0), 0);
        const duplicates = receiver.receipts.length - receiver.distinct;
        const exits = await Promise.all(started.map((w) => w.stop()));
        for (const w of started) workersRunning.delete(w);
        // A backend reports its counters at exit at the latest: read them once the workers are gone.
        await sleep(1_000);
        const commits = (await commitsOf(handle.db, fresh.name)) - commitsBefore;
        if (exits.some((code) => code !== 0)) throw new Error(`worker exits ${exits.join(', ')} (want 0)`);
        const perSec = events / seconds;
        const line =
          `${workers} worker(s): ${events} deliveries in ${(seconds * 1000).toFixed(0)} ms = ${perSec.toFixed(0)}/s` +
          `${workers > 1 ? ` (start lines ${startGap} ms apart; timed from the first)` : ''}; ${duplicates} duplicates; ` +
          `all attempts recorded ${recordedLagMs.toFixed(0)} ms after the last receipt (polled every 50 ms); ` +
          `worker CPU ${((cpuMs * 1000) / events).toFixed(0)} µs/delivery; ${(commits / events).toFixed(3)} commits/delivery (pg_stat_database); load average before ${load.toFixed(2)}`;
        log(line);
        notes.push(line);
        return perSec;
      };

      // Warm-up, untimed: the webhook tables get rows and statistics before the timed runs. On tables
      // never analyzed, the planner claims with a bitmap scan and a sort of every pending row (see notes).
      {
        const warm = await storeWithWebhook('warm-up');
        await preRecord(warm.storeId, WARMUP_EVENTS);
        receiver.reset();
        const worker = await startWorker(fresh.url, path.join(dataDir, 'worker-warm-up.log'));
        workersRunning.add(worker);
        await receiver.waitForDistinct(WARMUP_EVENTS, 120_000, 'warm-up');
        await waitUntilRecorded(handle.db, warm.webhookId, WARMUP_EVENTS, 60_000);
        await worker.stop();
        workersRunning.delete(worker);
        log(`warm-up: ${WARMUP_EVENTS} deliveries by one worker (untimed), then VACUUM ANALYZE`);
      }

      const oneWorker = await throughput(1);
      const twoWorkers = await throughput(2);

      // Latency: a running worker, events recorded one per transaction at a steady rate.
      const { storeId, webhookId } = await storeWithWebhook('latency');
      await settle();
      const worker = await startWorker(fresh.url, path.join(dataDir, 'worker-latency.log'));
      workersRunning.add(worker);
      const warmupSec = 2;
      const total = Math.round(rate * (warmupSec + latencySec));
      const measuredFrom = Math.round(rate * warmupSec);
      receiver.reset();
      const loadBefore = os.loadavg()[0] ?? 0;
      log(`latency: ${rate}/s for ${warmupSec} s warm-up + ${latencySec} s, one event per transaction…`);
      const writes: Promise<unknown>[] = [];
      const begin = nowMs();
      let lateSends = 0;
      for (let n = 0; n < total; n++) {
        const due = begin + (n * 1000) / rate;
        const wait = due - nowMs();
        if (wait > 0) await sleep(wait);
        else if (wait < -5) lateSends++;
        writes.push(recordEvent(handle.db, storeId, 'order.created', sampleEventData(n)));
      }
      await Promise.all(writes);
      await receiver.waitForDistinct(total, 120_000, 'latency');
      const seen = new Set<string>();
      const latencies: number[] = [];
      for (const r of receiver.receipts) {
        if (seen.has(r.id)) continue;
        seen.add(r.id);
        const body = JSON.parse(r.body) as { timestamp: string; data: { n: number } };
        if (body.data.n >= measuredFrom) latencies.push(r.at - Date.parse(body.timestamp));
      }
      latencies.sort((a, b) => a - b);
      await waitUntilRecorded(handle.db, webhookId, total, 60_000);
      if ((await worker.stop()) !== 0) throw new Error('latency worker did not exit 0');
      workersRunning.delete(worker);
      const p50 = percentile(latencies, 50);
      const p99 = percentile(latencies, 99);
      const latencyLine =
        `latency: ${latencies.length} events at ${rate}/s: p50 ${p50.toFixed(1)} ms, p90 ${percentile(latencies, 90).toFixed(1)} ms, ` +
        `p99 ${p99.toFixed(1)} ms, max ${(latencies.at(-1) ?? 0).toFixed(1)} ms (receipt − body timestamp; ${lateSends} events recorded >5 ms late); load average before ${loadBefore.toFixed(2)}`;
      log(latencyLine);

      notes.push(
        latencyLine,
        `baseline: bench/lib/bare-webhook-sender.ts in a child process, ${events} bodies signed like ours (both signatures), ${WORKER_CONCURRENCY} in flight over undici with ${WORKER_CONNECTIONS} connections (the worker's createSafeFetch pool): ${bare.ms.toFixed(0)} ms, sender CPU ${((bare.cpuMs * 1000) / events).toFixed(0)} µs/delivery`,
        'throughput timing: from the worker\'s "background worker started" log line (its loop is running) to the last distinct delivery id received; includes fan-out of the outbox (dispatch) and claiming; worker startup excluded',
        `events: order.created with order-like data (~${JSON.stringify(sampleEventData(0)).length} bytes), one webhook subscribed to *; the receiver (this process) answers 200 at once`,
        `workers: real \`emporium worker\` processes (node --import tsx src/cli.ts worker), default settings (concurrency ${WORKER_CONCURRENCY}), pool of 4, LOG_LEVEL info`,
        `machine: ${os.cpus().length} CPUs shared by PostgreSQL (if local), the worker(s), the receiver and the bench process`,
        `before the timed runs: ${WARMUP_EVENTS} deliveries untimed, and VACUUM ANALYZE of events and the webhook tables before each run (the steady state autovacuum keeps); on tables never analyzed PostgreSQL plans the claim as a bitmap scan plus a sort of every pending row, so each claim costs O(backlog) until autovacuum analyzes them`,
      );

      const label = `bare Node loop: same signed bodies, ${WORKER_CONCURRENCY} in flight, undici ${WORKER_CONNECTIONS} connections, no queue`;
      return {
        notes,
        metrics: [
          metric({
            name: 'deliveries, 1 worker',
            unit: '/s',
            ours: oneWorker,
            baseline: bareRate,
            baselineLabel: label,
            target: { on: 'value', op: '>=', value: 1000 },
          }),
          metric({
            name: 'deliveries, 2 workers',
            unit: '/s',
            ours: twoWorkers,
            baseline: bareRate,
            baselineLabel: label,
          }),
          metric({
            name: `event → first attempt p50 (${rate}/s)`,
            unit: 'ms',
            ours: p50,
            target: { on: 'value', op: '<', value: 50 },
          }),
          metric({ name: `event → first attempt p99 (${rate}/s)`, unit: 'ms', ours: p99 }),
        ],
      };
    } finally {
      await cleanUp(log, release);
    }
  },
};
