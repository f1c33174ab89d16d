import fs from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import { recordEvent } from '../../src/platform/outbox.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { localPortsOf } from '../helpers/process-group.js';
import {
  cleanupDataDir,
  type Env,
  embeddedDatabaseUrl,
  killLeftovers,
  makeDataDir,
  runCliJson,
  ServerProcess,
  sleep,
} from '../helpers/processes.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { WorkerProcess } from '../helpers/worker-process.js';

/**
 * Webhook delivery across real process failures: `emporium worker` processes killed with -9, run two
 * at a time, stopped with SIGTERM while deliveries are in flight, against a real local receiver.
 * Events are recorded from this process through the outbox on the same database; the webhooks are
 * created over HTTP on an `emporium serve --no-worker`. Embedded mode: one DATA_DIR whose cluster the
 * server owns and the workers attach to; postgres mode: a fresh database through DATABASE_URL.
 */
const mode = inject('databaseMode');
/** The worker's default number of deliveries in flight (webhookDeliveryJobs's `concurrency`). */
const CONCURRENCY = 64;

let dataDir: string;
let env: Env;
let testDatabase: TestDatabase | undefined;
let server: ServerProcess;
let database: DatabaseHandle;

/** User + system CPU time of a process so far, in ms (Linux /proc, 100 clock ticks a second). */
function cpuMsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(100);
  }
}

// ── Set-up ─────────────────────────────────────────────────────────────────────────────────────

beforeAll(async () => {
  dataDir = makeDataDir('webhooks');
  env = {
    DATA_DIR: dataDir,
    APP_SECRET: 'durability-app-secret-0123456789abcdef',
    ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '1,1,1',
    WEBHOOK_TIMEOUT_MS: '5000',
    RATE_LIMIT_PER_MINUTE: '100000',
  };
  if (mode === 'postgres') {
    testDatabase = await createTestDatabase();
    env.DATABASE_URL = testDatabase.url;
  }
  // The server owns the embedded cluster (embedded mode); the CLI and the workers attach to it.
  server = await ServerProcess.start(env, { args: ['serve', '--no-worker'] });
  database = openDatabase(testDatabase?.url ?? embeddedDatabaseUrl(dataDir), { max: 4 });
}, 180_000);

afterAll(async () => {
  await Promise.all([...WorkerProcess.running].map((worker) => worker.kill()));
  await database?.close();
  if (server) await server.stop().catch(() => server.kill());
  await killLeftovers();
  await cleanupDataDir(dataDir);
  await testDatabase?.drop();
});

/** A store of its own, a key, and a webhook on `receiver` for every event, made over HTTP. */
async function storeWithWebhook(slug: string, receiver: WebhookReceiver) {
  const { store } = await runCliJson<{ store: { id: string } }>(
    ['store', 'create', '--slug', slug, '--name', slug],
    env,
  );
  const { key } = await runCliJson<{ key: string }>(
    ['api-key', 'create', '--store', slug, '--scopes', 'webhooks:read,webhooks:write'],
    env,
  );
  const res = await server.fetch('/api/v1/webhooks', {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${receiver.url}/${slug}`, events: ['*'] }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const webhook = ((await res.json()) as { data: { id: string } }).data;
  return { storeId: store.id, key, webhookId: webhook.id };
}

/** `count` events of the store through the outbox, in transactions of 500; data `{ n }`. */
async function recordEvents(storeId: string, count: number) {
  for (let from = 0; from < count; from += 500) {
    await database.db.transaction().execute(async (tx) => {
      for (let n = from; n < Math.min(count, from + 500); n++) {
        await recordEvent(tx, storeId, 'order.created', { n, orderNumber: String(1000 + n) });
      }
    });
  }
}

/** Receipts by delivery id, and the event numbers seen. */
function tally(receiver: WebhookReceiver) {
  const byId = new Map<string, string[]>();
  const numbers = new Set<number>();
  for (const request of receiver.received) {
    const id = String(request.headers['x-webhook-id']);
    byId.set(id, [...(byId.get(id) ?? []), request.body]);
    numbers.add((JSON.parse(request.body) as { data: { n: number } }).data.n);
  }
  return {
    byId,
    numbers,
    receipts: receiver.received.length,
    duplicates: receiver.received.length - byId.size,
  };
}

/** A cheap `waitFor` predicate (it runs after every request): `count` distinct delivery ids received. */
function distinctIds(receiver: WebhookReceiver, count: number) {
  const seen = new Set<string>();
  let scanned = 0;
  return () => {
    for (; scanned < receiver.received.length; scanned++) {
      seen.add(String(receiver.received[scanned]?.headers['x-webhook-id']));
    }
    return seen.size >= count;
  };
}

async function attemptsOf(webhookId: string) {
  const { rows } = await sql<{ attempt: number; status: string; count: string }>`
    SELECT attempt, status, count(*) AS count FROM webhook_attempts WHERE webhook_id = ${webhookId}
    GROUP BY attempt, status ORDER BY attempt, status`.execute(database.db);
  const total = rows.reduce((sum, row) => sum + Number(row.count), 0);
  return { total, rows: rows.map((row) => ({ ...row, count: Number(row.count) })) };
}

/**
 * Each delivery's attempts in order (number, status code, error): a log that reads 1, 2, … with no
 * gap, as the contract's one entry per attempt promises.
 */
async function attemptLogs(webhookId: string) {
  const { rows } = await sql<{
    delivery_id: string;
    attempt: number;
    status_code: number | null;
    error: string | null;
  }>`
    SELECT delivery_id, attempt, status_code, error FROM webhook_attempts WHERE webhook_id = ${webhookId}
    ORDER BY delivery_id, attempt`.execute(database.db);
  const byDelivery = new Map<string, typeof rows>();
  for (const row of rows) byDelivery.set(row.delivery_id, [...(byDelivery.get(row.delivery_id) ?? []), row]);
  return byDelivery;
}

const LOST = 'worker stopped before the outcome was recorded';

async function deliveriesOf(webhookId: string) {
  const { rows } = await sql<{ status: string; leased: boolean; count: string }>`
    SELECT status, locked_until > now() AS leased, count(*) AS count FROM webhook_deliveries
    WHERE webhook_id = ${webhookId} GROUP BY 1, 2`.execute(database.db);
  const count = (pick: (row: (typeof rows)[number]) => boolean) =>
    rows.filter(pick).reduce((sum, row) => sum + Number(row.count), 0);
  return {
    total: count(() => true),
    pending: count((row) => row.status === 'pending'),
    succeeded: count((row) => row.status === 'succeeded'),
    leased: count((row) => row.status === 'pending' && row.leased === true),
  };
}

/** Waits until every delivery of the webhook is final (succeeded or failed). */
async function drained(webhookId: string, expected: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await deliveriesOf(webhookId);
    if (state.total === expected && state.pending === 0) return state;
    if (Date.now() > deadline) throw new Error(`not drained after ${timeoutMs} ms: ${JSON.stringify(state)}`);
    await sleep(100);
  }
}

// ── The tests ──────────────────────────────────────────────────────────────────────────────────

describe('webhook delivery on real worker processes', () => {
  it('kill -9 mid-delivery: a new worker delivers every event at least once, few twice', async () => {
    const EVENTS = 5_000;
    // Every answer held 20 ms: the worker always has deliveries the receiver got but not answered.
    const receiver = await startWebhookReceiver(undefined, { delayMs: 20 });
    try {
      const { storeId, webhookId } = await storeWithWebhook('crash', receiver);
      await recordEvents(storeId, EVENTS);

      // A short time-out makes the lease (time-out + 30 s) that the second worker waits out short.
      const first = await WorkerProcess.start({ ...env, WEBHOOK_TIMEOUT_MS: '1000' });
      await receiver.waitFor(() => receiver.received.length >= EVENTS / 2, 60_000);
      expect(await first.kill()).toEqual({ code: null, signal: 'SIGKILL' });
      const atKill = tally(receiver);
      const state = await deliveriesOf(webhookId);
      const leasedAtKill = state.leased;

      const killedAt = Date.now();
      const second = await WorkerProcess.start({ ...env, WEBHOOK_TIMEOUT_MS: '1000' });
      // Once only the dead worker's leased deliveries are left, the new worker sleeps until the
      // leases end rather than asking the database again and again.
      await waitFor(async () => {
        const now = await deliveriesOf(webhookId);
        return now.pending === now.leased;
      }, 60_000);
      const idleFrom = cpuMsOf(second.pid);
      await sleep(3_000);
      const idleCpuMs = cpuMsOf(second.pid) - idleFrom;
      expect(idleCpuMs).toBeLessThan(300);
      await receiver.waitFor(distinctIds(receiver, EVENTS), 90_000);
      await drained(webhookId, EVENTS, 30_000);
      const recoveredMs = Date.now() - killedAt;
      expect(await second.stop()).toEqual({ code: 0, signal: null });
      expect(second.problems()).toEqual([]);

      const { byId, numbers, receipts, duplicates } = tally(receiver);
      const attempts = await attemptsOf(webhookId);
      const logs = await attemptLogs(webhookId);
      const lost = [...logs.values()].filter((log) => log.some((a) => a.error === LOST));
      console.log(
        `[${mode}] kill -9 at ${atKill.receipts} receipts (${atKill.byId.size} distinct); ${leasedAtKill} deliveries were leased to the dead worker; ` +
          `new worker's CPU while waiting out the leases: ${idleCpuMs} ms in 3 s; after recovery (${recoveredMs} ms, lease included): ${receipts} receipts, ${byId.size} distinct ids, ${duplicates} duplicates; ` +
          `attempts logged ${JSON.stringify(attempts.rows)}; deliveries whose first attempt is logged as lost: ${lost.length}`,
      );
      expect(byId.size).toBe(EVENTS);
      expect(numbers.size).toBe(EVENTS);
      expect(Math.min(...numbers)).toBe(0);
      expect(Math.max(...numbers)).toBe(EVENTS - 1);
      // A delivery sent twice carries the same bytes both times.
      for (const bodies of byId.values()) expect(new Set(bodies).size).toBe(1);
      // Only what the killed worker had claimed and not yet recorded is sent again, and a worker
      // never holds more than its concurrency of such claims.
      expect(leasedAtKill).toBeLessThanOrEqual(CONCURRENCY);
      expect(duplicates).toBeLessThanOrEqual(leasedAtKill);
      // Each delivery the dead worker had claimed shows that attempt as lost (no status code), then
      // the new worker's attempt 2; every other delivery one attempt. No log skips a number.
      expect(logs.size).toBe(EVENTS);
      for (const log of logs.values()) expect(log.map((a) => a.attempt)).toEqual(log.map((_, i) => i + 1));
      expect(lost).toHaveLength(leasedAtKill);
      for (const log of lost)
        expect(log.map(({ attempt, status_code, error }) => ({ attempt, status_code, error }))).toEqual([
          { attempt: 1, status_code: null, error: LOST },
          { attempt: 2, status_code: 200, error: null },
        ]);
      expect(attempts.total).toBe(EVENTS + leasedAtKill);
    } finally {
      await receiver.close();
    }
  }, 300_000);

  it('two workers at once: each delivery arrives exactly once, one attempt each in the log', async () => {
    const EVENTS = 2_000;
    // One worker never has more than CONCURRENCY sends in flight to one webhook (its slow sends get no
    // further claim), so holding every answer until one more has arrived proves that both workers
    // sent, however the machine schedules them.
    const receiver = await startWebhookReceiver(undefined, { holdUntil: (got) => got.length > CONCURRENCY });
    let pair: WorkerProcess[] = [];
    try {
      const { storeId, key, webhookId } = await storeWithWebhook('pair', receiver);
      pair = await Promise.all([WorkerProcess.start(env), WorkerProcess.start(env)]);
      // Which worker sent what: the receiver sees the sender's port, each worker holds its sockets.
      const portOwner = new Map<number, number>();
      let recordMs = 0;
      let deliverMs = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          for (const worker of pair)
            for (const port of localPortsOf(worker.pid)) portOwner.set(port, worker.pid);
          await sleep(20);
        }
      })();
      try {
        const recordStart = Date.now();
        await recordEvents(storeId, EVENTS);
        recordMs = Date.now() - recordStart;
        await receiver.waitFor(() => receiver.received.length >= EVENTS, 60_000);
        deliverMs = Date.now() - recordStart;
        await drained(webhookId, EVENTS, 30_000);
      } finally {
        sampling = false;
        await sampler;
      }
      await sleep(500); // anything sent twice would arrive now
      const { byId, numbers, receipts, duplicates } = tally(receiver);
      expect(byId.size).toBe(EVENTS);
      expect(numbers.size).toBe(EVENTS);
      expect(receipts).toBe(EVENTS);
      expect(duplicates).toBe(0);

      const attempts = await attemptsOf(webhookId);
      expect(attempts.rows).toEqual([{ attempt: 1, status: 'succeeded', count: EVENTS }]);
      const res = await server.fetch(`/api/v1/webhooks/${webhookId}/deliveries?limit=1`, {
        headers: { 'x-api-key': key },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { meta: { pagination: { total: number } } }).meta.pagination.total).toBe(
        EVENTS,
      );

      const perWorker = pair.map(
        (worker) =>
          receiver.received.filter(
            (r) => r.remotePort !== undefined && portOwner.get(r.remotePort) === worker.pid,
          ).length,
      );
      console.log(
        `[${mode}] two workers: ${receipts} receipts, ${byId.size} distinct ids, ${duplicates} duplicates; ` +
          `recorded in ${recordMs} ms, all received ${deliverMs} ms after the first was recorded; sent by worker A ${perWorker[0]}, worker B ${perWorker[1]} (${EVENTS - (perWorker[0] ?? 0) - (perWorker[1] ?? 0)} unattributed)`,
      );
      // Both took part (the held answers above make sure of it), and the ports show it.
      for (const sent of perWorker) expect(sent).toBeGreaterThan(0);
      const exits = await Promise.all(pair.map((worker) => worker.stop()));
      expect(exits).toEqual([
        { code: 0, signal: null },
        { code: 0, signal: null },
      ]);
      for (const worker of pair) expect(worker.problems()).toEqual([]);
    } finally {
      // A failed assertion must not leave two workers delivering into the next test's webhooks.
      await Promise.all(pair.map((worker) => worker.kill()));
      await receiver.close();
    }
  }, 240_000);

  it('SIGTERM with deliveries in flight: exit 0, every in-flight attempt recorded, nothing left leased', async () => {
    const EVENTS = 500;
    // Each answer takes 500 ms, so SIGTERM lands with a full set of deliveries in flight.
    const receiver = await startWebhookReceiver(undefined, { delayMs: 500 });
    try {
      const { storeId, webhookId } = await storeWithWebhook('sigterm', receiver);
      await recordEvents(storeId, EVENTS);
      const worker = await WorkerProcess.start(env);
      await receiver.waitFor(() => receiver.received.length >= 16, 30_000);
      const stopping = worker.stop();
      const exit = await stopping;
      expect(exit, worker.output()).toEqual({ code: 0, signal: null });
      expect(worker.logLines().at(-1)?.msg).toBe('shutdown complete');
      expect(worker.problems()).toEqual([]);

      // Everything the worker sent was answered and recorded before it exited; no lease is left over.
      const atExit = tally(receiver);
      const attemptsAtExit = await attemptsOf(webhookId);
      const state = await deliveriesOf(webhookId);
      expect(atExit.receipts).toBeGreaterThanOrEqual(16);
      expect(attemptsAtExit.total).toBe(atExit.receipts);
      expect(state.succeeded).toBe(atExit.receipts);
      expect(state.leased).toBe(0);

      // A new worker takes the rest at once (no lease to wait out) and sends nothing twice.
      const next = await WorkerProcess.start(env);
      const restartedAt = Date.now();
      await drained(webhookId, EVENTS, 60_000);
      const drainMs = Date.now() - restartedAt;
      expect(await next.stop()).toEqual({ code: 0, signal: null });
      const after = tally(receiver);
      const attempts = await attemptsOf(webhookId);
      expect(after.byId.size).toBe(EVENTS);
      expect(after.duplicates).toBe(0);
      expect(attempts.total).toBe(after.receipts);
      expect(attempts.rows).toEqual([{ attempt: 1, status: 'succeeded', count: EVENTS }]);
      console.log(
        `[${mode}] SIGTERM with ${atExit.receipts} deliveries sent: all ${attemptsAtExit.total} recorded before exit 0; ` +
          `the next worker sent the other ${EVENTS - atExit.receipts} in ${drainMs} ms; receipts ${after.receipts} = attempts ${attempts.total}`,
      );
    } finally {
      await receiver.close();
    }
  }, 240_000);
});
