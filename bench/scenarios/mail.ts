import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { simpleParser } from 'mailparser';
import type { QueuedNotification } from '../../src/modules/notifications/index.js';
import type { Db } from '../../src/platform/db/database.js';
import type { MailSenderInput, PrebuiltMessage } from '../lib/bare-mail-sender.js';
import { cleanUp, cleanUpStack } from '../lib/cleanup.js';
import { startInProcessApp } from '../lib/in-process-app.js';
import { createMailStore, MAIL_STORE, MAIL_STORE_SHAPE, placeMailOrders } from '../lib/mail-orders.js';
import { composerFor, WORKER_MAIL } from '../lib/mail-worker-settings.js';
import { turnOffKinds } from '../lib/notifications-fixture.js';
import { envNumber, median, roundOrder } from '../lib/rounds.js';
import { metric, type Scenario } from '../lib/scenario.js';
import { startSmtpSink } from '../lib/smtp-sink.js';
import { startWorkerProcess, type WorkerRun } from '../lib/worker-process.js';

/**
 * Issue 32, "Speed": order confirmations sent by ONE real `emporium worker` process (the
 * notification job on the job runner, the real composer, the real mailer) to a local SMTP sink in
 * this process (bench/lib/smtp-sink.ts: accepts and discards). MESSAGES orders are placed first
 * through the storefront checkout, which queues their confirmations in the orders' transactions;
 * then the worker is started and timed from its start line to the last distinct Message-ID received.
 * Render time: the real composer run here, one message at a time, over COMPOSE_SAMPLE of the queued
 * confirmations (reads and Liquid rendering, outside any transaction, as the worker does it).
 * Baseline: plain nodemailer (bench/lib/bare-mail-sender.ts, a child process) sending the same
 * number of pre-built messages (those composed here, in turn) over the same pooled transport to the
 * same sink. BENCH_ROUNDS rounds (default 1) alternate which of the two runs first; medians.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const POOL_SIZE = 10;
/** Checkouts in flight while the orders are placed (setup, untimed). */
const PLACE_CONCURRENCY = 4;
/** Composed before the timed sample (the composer's and V8's warm-up). */
const COMPOSE_WARMUP = 50;
const MAIL_FROM = 'no-reply@mail.bench.example';
const PUBLIC_URL = 'https://shop.bench.example';
const APP_SECRET = 'bench-app-secret-0123456789abcdef0123456789';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function statusCounts(db: Db, storeId: string): Promise<Record<string, number>> {
  const { rows } = await sql<{ key: string; n: number }>`
    SELECT kind || '/' || status AS key, count(*)::int AS n FROM notifications
    WHERE store_id = ${storeId} GROUP BY 1`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.key, Number(r.n)]));
}

/** The queued confirmations the composer is timed on, as the worker's claim hands them over. */
async function queuedSample(db: Db, storeId: string, limit: number): Promise<QueuedNotification[]> {
  const rows = await db
    .selectFrom('notifications')
    .select(['id', 'store_id', 'kind', 'to_email', 'order_id', 'refs', 'test'])
    .where('store_id', '=', storeId)
    .where('status', '=', 'pending')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows;
}

/**
 * Queues the store's confirmations again for another round of the worker: the same rows, pending,
 * unclaimed and never tried (their Message-IDs repeat across rounds; the sink counts each round
 * apart), then vacuumed so that the round's claims meet no dead rows.
 */
async function requeue(db: Db, storeId: string) {
  await sql`
    UPDATE notifications SET status = 'pending', attempts = 0, next_attempt_at = now(), locked_until = NULL,
      subject = NULL, last_error = NULL, sent_at = NULL
    WHERE store_id = ${storeId}`.execute(db);
  await sql`VACUUM (ANALYZE) notifications`.execute(db);
}

function runBareSender(input: Omit<MailSenderInput, 'runTag'> & { runTag: string }) {
  return new Promise<{ ms: number; cpuMs: number }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/bare-mail-sender.ts'], {
      cwd: root,
      env: { ...process.env, BENCH_MAIL_SENDER: JSON.stringify(input) },
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
      if (code !== 0) return reject(new Error(`bare mail sender exited with ${code}: ${err.trim()}`));
      const result = JSON.parse(out) as { ms: number; cpuMs: number; failed: number; firstError?: string };
      if (result.failed) {
        return reject(new Error(`bare mail sender: ${result.failed} failed (${result.firstError})`));
      }
      resolve(result);
    });
  });
}

export const scenario: Scenario = {
  name: 'mail',
  description:
    'order confirmations/s sent by one `emporium worker` (queued by real checkouts, composed from their orders) to a local SMTP sink, ' +
    'and the render time per message, vs plain nodemailer sending pre-built messages',

  async run(log) {
    const messages = Math.round(envNumber('BENCH_MAIL_MESSAGES', 10_000));
    const composeSample = Math.min(messages, Math.round(envNumber('BENCH_MAIL_COMPOSE', 1000)));
    const rounds = Math.round(envNumber('BENCH_ROUNDS', 1));
    const notes: string[] = [];
    const { release, onExit } = cleanUpStack();
    const running = new Set<WorkerRun>();

    try {
      const { fresh, handle, app } = await startInProcessApp(log, notes, onExit, POOL_SIZE);
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-bench-mail-'));
      onExit('data dir', async () => fs.rmSync(dataDir, { recursive: true, force: true }));
      onExit('workers', () => Promise.all([...running].map((w) => w.stop())));
      const sink = await startSmtpSink();
      onExit('SMTP sink', () => sink.close());

      // The store, its orders, their confirmations (and nothing else: new_order is turned off).
      const store = await createMailStore(app, handle.db);
      await turnOffKinds(app, store.id, ['new_order']);
      log(`placing ${messages} orders through the storefront checkout (${PLACE_CONCURRENCY} at a time)…`);
      const placeStarted = performance.now();
      await placeMailOrders({
        app,
        productIds: store.productIds,
        count: messages,
        concurrency: PLACE_CONCURRENCY,
        onProgress: (done) => log(`  ${done} orders placed`),
      });
      const placeSec = (performance.now() - placeStarted) / 1000;
      const queued = await statusCounts(handle.db, store.id);
      const expected = { 'order_confirmation/pending': messages };
      if (JSON.stringify(queued) !== JSON.stringify(expected)) {
        throw new Error(
          `after ${messages} checkouts the queue holds ${JSON.stringify(queued)}, want ${JSON.stringify(expected)}`,
        );
      }
      await sql`VACUUM (ANALYZE) notifications, orders, order_line_items, products`.execute(handle.db);
      log(
        `${messages} orders placed in ${placeSec.toFixed(1)} s (${(messages / placeSec).toFixed(0)}/s); ${messages} order_confirmation queued, nothing else`,
      );

      // Render time: the real composer, one message at a time, over queued confirmations.
      const composer = composerFor(app, handle, PUBLIC_URL);
      const sample = await queuedSample(handle.db, store.id, COMPOSE_WARMUP + composeSample);
      for (const row of sample.slice(0, COMPOSE_WARMUP)) await composer.compose(row);
      const prebuilt: PrebuiltMessage[] = [];
      const composeMs: number[] = [];
      const cpuBefore = process.cpuUsage();
      const composeStarted = performance.now();
      for (const row of sample.slice(COMPOSE_WARMUP)) {
        const t0 = performance.now();
        const composed = await composer.compose(row);
        composeMs.push(performance.now() - t0);
        prebuilt.push({
          from: `"${composed.storeName}" <${MAIL_FROM}>`,
          replyTo: composed.replyTo,
          to: row.to_email,
          subject: composed.subject,
          html: composed.html,
          text: composed.text,
        });
      }
      const composeWallMs = performance.now() - composeStarted;
      const composeCpu = process.cpuUsage(cpuBefore);
      const composeCpuUs = (composeCpu.user + composeCpu.system) / composeMs.length;
      composeMs.sort((a, b) => a - b);
      const averageBytes =
        prebuilt.reduce((sum, m) => sum + Buffer.byteLength(m.html) + Buffer.byteLength(m.text), 0) /
        prebuilt.length;
      const composeLine =
        `compose (this process, one at a time, ${composeMs.length} confirmations after ${COMPOSE_WARMUP} untimed): ` +
        `median ${median(composeMs).toFixed(2)} ms, p90 ${percentile(composeMs, 90).toFixed(2)} ms, ` +
        `p99 ${percentile(composeMs, 99).toFixed(2)} ms, mean ${(composeWallMs / composeMs.length).toFixed(2)} ms, ` +
        `CPU ${composeCpuUs.toFixed(0)} µs/message (of this process: rendering and the reads' client side); ` +
        `html + text ${(averageBytes / 1024).toFixed(1)} KiB per message on average`;
      log(composeLine);
      const messagesFile = path.join(dataDir, 'prebuilt-messages.json');
      fs.writeFileSync(messagesFile, JSON.stringify(prebuilt));

      const baseline = async (round: number) => {
        sink.reset();
        const load = os.loadavg()[0] ?? 0;
        log(`baseline ${round}: plain nodemailer sending ${messages} pre-built messages…`);
        const bare = await runBareSender({
          smtpUrl: sink.url,
          file: messagesFile,
          count: messages,
          concurrency: WORKER_MAIL.concurrency,
          transport: WORKER_MAIL.transport,
          runTag: `r${round}`,
        });
        if (sink.distinct !== messages)
          throw new Error(`baseline ${round}: ${sink.distinct} of ${messages} received`);
        const perSec = messages / (bare.ms / 1000);
        const line =
          `baseline ${round}: ${messages} messages in ${bare.ms.toFixed(0)} ms = ${perSec.toFixed(0)}/s, ` +
          `sender CPU ${((bare.cpuMs * 1000) / messages).toFixed(0)} µs/message, ${(sink.bytes / messages / 1024).toFixed(1)} KiB/message at the sink; load average before ${load.toFixed(2)}`;
        log(line);
        notes.push(line);
        return { perSec, cpuUsPerMessage: (bare.cpuMs * 1000) / messages };
      };

      const ours = async (round: number) => {
        sink.reset();
        const load = os.loadavg()[0] ?? 0;
        log(`worker ${round}: starting one \`emporium worker\` on the ${messages} queued confirmations…`);
        const worker = await startWorkerProcess({
          databaseUrl: fresh.url,
          logFile: path.join(dataDir, `worker-${round}.log`),
          env: { SMTP_URL: sink.url, MAIL_FROM, PUBLIC_URL, APP_SECRET },
          unset: ['WEBHOOK_RETRY_SCHEDULE', 'WEBHOOK_TIMEOUT_MS', ...WORKER_MAIL.unsetEnv],
        });
        running.add(worker);
        const cpuBefore = worker.cpuMs();
        await sink.waitForDistinct(messages, 600_000, `worker ${round}`);
        const seconds = (sink.lastAt - worker.startedAt) / 1000;
        const deadline = Date.now() + 60_000;
        let counts = await statusCounts(handle.db, store.id);
        while (counts['order_confirmation/sent'] !== messages && Date.now() < deadline) {
          await sleep(50);
          counts = await statusCounts(handle.db, store.id);
        }
        const recordedLagMs = performance.timeOrigin + performance.now() - sink.lastAt;
        const cpuMs = worker.cpuMs() - cpuBefore;
        const duplicates = sink.received - sink.distinct;
        const exit = await worker.stop();
        running.delete(worker);
        if (exit !== 0) throw new Error(`worker ${round} exited with ${exit} (want 0)`);
        if (JSON.stringify(counts) !== JSON.stringify({ 'order_confirmation/sent': messages })) {
          throw new Error(`after the worker the queue holds ${JSON.stringify(counts)}`);
        }
        const perSec = messages / seconds;
        const line =
          `worker ${round}: ${messages} confirmations in ${(seconds * 1000).toFixed(0)} ms = ${perSec.toFixed(0)}/s; ` +
          `${duplicates} duplicates; all recorded sent ${recordedLagMs.toFixed(0)} ms after the last receipt (polled every 50 ms); ` +
          `worker CPU ${((cpuMs * 1000) / messages).toFixed(0)} µs/message, ${(sink.bytes / messages / 1024).toFixed(1)} KiB/message at the sink; load average before ${load.toFixed(2)}`;
        log(line);
        notes.push(line);
        return { perSec, cpuUsPerMessage: (cpuMs * 1000) / messages, firstRaw: sink.firstRaw };
      };

      // Rounds alternate which goes first (bench/lib/rounds.ts); before each round but the first the
      // worker's confirmations are queued again (the same rows, pending and unclaimed, as if new).
      const runs = {
        ours: [] as Awaited<ReturnType<typeof ours>>[],
        baseline: [] as Awaited<ReturnType<typeof baseline>>[],
      };
      for (let round = 0; round < rounds; round++) {
        for (const which of roundOrder(round)) {
          if (which === 'baseline') runs.baseline.push(await baseline(round + 1));
          else {
            if (runs.ours.length > 0) await requeue(handle.db, store.id);
            runs.ours.push(await ours(round + 1));
          }
        }
      }
      const measured = {
        perSec: median(runs.ours.map((r) => r.perSec)),
        cpuUsPerMessage: median(runs.ours.map((r) => r.cpuUsPerMessage)),
        firstRaw: runs.ours[0]?.firstRaw,
      };
      const bareRate = median(runs.baseline.map((r) => r.perSec));
      const bareCpu = median(runs.baseline.map((r) => r.cpuUsPerMessage));

      // What the worker sent is an order confirmation a mail client shows: checked with a MIME parser.
      const parsed = await simpleParser(measured.firstRaw ?? '');
      const fromName = parsed.from?.value[0]?.name;
      const orderNumber = /#?(\d{4,})/.exec(parsed.subject ?? '')?.[1];
      if (
        fromName !== MAIL_STORE.name ||
        !parsed.html ||
        !parsed.text ||
        !parsed.messageId ||
        !orderNumber ||
        !parsed.html.includes(orderNumber)
      ) {
        throw new Error(
          `correctness check FAILED: the first message has from "${fromName}", subject "${parsed.subject}", ` +
            `html ${Boolean(parsed.html)}, text ${Boolean(parsed.text)}, Message-ID ${parsed.messageId}`,
        );
      }
      const checkLine =
        `correctness check passed (mailparser, the first message the worker sent): From "${fromName}", ` +
        `Subject "${parsed.subject}", Message-ID ${parsed.messageId}, an HTML and a text part, the order number in both`;
      log(checkLine);

      notes.push(
        composeLine,
        checkLine,
        `store: ${MAIL_STORE_SHAPE}; ${messages} orders placed through POST /api/storefront/{slug}/checkout before the timed runs ` +
          `(${(messages / placeSec).toFixed(0)}/s, ${PLACE_CONCURRENCY} at a time, untimed), each queuing its order_confirmation in ` +
          "its transaction (new_order turned off through PUT /api/v1/notifications/templates/new_order, so the worker's queue holds " +
          'the confirmations only); VACUUM ANALYZE after',
        `worker: a real \`emporium worker\` process (node --import tsx src/cli.ts worker), SMTP_URL the sink, LOG_LEVEL info; ` +
          `timed from its "background worker started" log line to the last distinct Message-ID the sink received (worker start-up excluded; ` +
          `claiming, composing, sending and recording included); ${WORKER_MAIL.describe}`,
        `baseline: bench/lib/bare-mail-sender.ts in a child process, plain nodemailer (${JSON.stringify(WORKER_MAIL.transport)}), ` +
          `${WORKER_MAIL.concurrency} messages in flight, the ${prebuilt.length} messages composed above sent in turn (each with a Message-ID of its own); ` +
          `${rounds > 1 ? `${rounds} alternating rounds of the worker and the baseline (medians shown; before each round of the worker but the first, the same confirmations are queued again: pending, unclaimed, never tried, then VACUUM ANALYZE)` : 'one round: the worker, then the baseline'}`,
        'sink: smtp-server in the bench process, plain SMTP, reads each message to its end and keeps only its header block (Message-ID)',
        `machine: ${os.cpus().length} CPUs shared by PostgreSQL (if local), the worker or the bare sender, the sink and the bench process; other work on the machine shows in the load averages`,
      );

      const label = `plain nodemailer: pre-built messages, same pooled transport (${WORKER_MAIL.transportShort}), no queue, no rendering`;
      return {
        notes,
        metrics: [
          metric({
            name: 'order confirmations, 1 worker',
            unit: 'messages/s',
            ours: measured.perSec,
            baseline: bareRate,
            baselineLabel: label,
            better: 'higher',
            target: { on: 'value', op: '>=', value: 200 },
          }),
          metric({
            name: 'CPU per message (worker / bare sender)',
            unit: 'µs',
            ours: measured.cpuUsPerMessage,
            baseline: bareCpu,
            baselineLabel: label,
          }),
          metric({ name: 'compose per message, median', unit: 'ms', ours: median(composeMs) }),
          metric({ name: 'compose per message, p99', unit: 'ms', ours: percentile(composeMs, 99) }),
        ],
      };
    } finally {
      await cleanUp(log, release);
    }
  },
};
