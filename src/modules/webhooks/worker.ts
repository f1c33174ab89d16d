import type pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/database.js';
import { inLongTransaction } from '../../platform/db/transaction.js';
import { newId } from '../../platform/ids.js';
import type { SafeFetch } from '../../platform/net/safe-fetch.js';
import { EVENTS_CHANNEL } from '../../platform/outbox.js';
import { openSecret } from '../../platform/secret-box.js';
import { createWakeup } from '../../platform/wakeup.js';
import { deliveryBody, subscribes } from './events.js';
import { nextStep } from './retry.js';
import { type SendResult, sendDelivery } from './send.js';
import * as repo from './webhooks.repository.js';
import type { DeliveryStatus } from './webhooks.tables.js';

export interface WorkerOptions {
  db: Db;
  /** A pool to take the LISTEN connection from. */
  pool: pg.Pool;
  fetch: SafeFetch;
  logger: Logger;
  appSecret: string;
  retrySchedule: readonly number[];
  timeoutMs: number;
  disableAfterHours: number;
  /** Called after a webhook was disabled (the notice to the store's admins). */
  onDisabled?: (webhook: { id: string; store_id: string; url: string }, reason: string) => Promise<void>;
  /** Outcome counter for /metrics. */
  onAttempt?: (outcome: DeliveryStatus) => void;
  concurrency?: number;
  /**
   * A send in flight longer than this (ms) is slow: it stops counting against `concurrency`, and its
   * webhook gets no further claim until its slow sends end. Default: half the time-out, at most 1 s.
   */
  slowAfterMs?: number;
  /** Safety-net poll when no notification arrives (ms). */
  pollMs?: number;
  retentionDays?: number;
}

/** Outbox events fanned out per dispatch transaction. */
const DISPATCH_BATCH = 500;
/** How long a finished attempt may wait for others to be recorded with it. */
const RECORD_DELAY_MS = 5;

interface Finished {
  delivery: repo.ClaimedDelivery;
  result: SendResult;
  at: Date;
}

/**
 * The webhook worker: fans committed outbox events out into deliveries, claims due deliveries
 * (SKIP LOCKED + lease), posts them outside any transaction, and records the attempts in batches
 * while further sends are in flight. At most `concurrency` claimed deliveries are ever unrecorded
 * (in flight, or sent and waiting to be recorded): that bounds what a crash can make a receiver get
 * twice. Woken by LISTEN/NOTIFY at each commit, by each recorded batch (room to claim), and by a
 * slow poll as a safety net.
 */
export function createWebhookWorker(options: WorkerOptions) {
  const { db, logger } = options;
  const concurrency = options.concurrency ?? 64;
  const pollMs = options.pollMs ?? 5_000;
  const leaseMs = options.timeoutMs + 30_000;
  const slowAfterMs = options.slowAfterMs ?? Math.min(1000, options.timeoutMs / 2);
  /**
   * Attempts are recorded, and deliveries claimed, this many at a time at least (or whatever there
   * is once nothing else is in flight): a statement per handful of deliveries would cost the
   * database more than the deliveries themselves.
   */
  const batchSize = Math.max(1, Math.floor(concurrency / 4));
  const secrets = new Map<string, string>();
  let running = false;
  let inFlight = 0;
  /** Claimed and not yet recorded: in flight, in `finished`, or in the batch being recorded. */
  let unrecorded = 0;
  /** Sends in flight: since when, to which webhook (by delivery id). */
  const sending = new Map<string, { webhookId: string; since: number }>();
  let finished: Finished[] = [];
  /** The recording of finished attempts, while it runs (one batch at a time). */
  let recording: Promise<void> | undefined;
  let recordTimer: NodeJS.Timeout | undefined;
  let loop: Promise<void> | undefined;
  let lastPrune = 0;
  /**
   * Whether the outbox may hold undispatched events: set by a notification, a (re)started LISTEN,
   * the safety-net poll and a full dispatch batch. The loop also runs after every recorded batch,
   * and looking for events then would cost a transaction per cycle for nothing.
   */
  let dispatchWanted = true;
  // A notification, or a recorded batch, that finds the loop awake makes its next sleep return at once.
  const wakeup = createWakeup({
    pool: options.pool,
    channel: EVENTS_CHANNEL,
    name: 'webhook worker',
    logger,
    onNotification: () => {
      dispatchWanted = true;
    },
    onListening: () => {
      dispatchWanted = true; // events committed while nobody listened
    },
  });
  const { poke } = wakeup;

  const secretOf = (sealed: string) => {
    let secret = secrets.get(sealed);
    if (!secret) {
      secret = openSecret(options.appSecret, sealed);
      if (secrets.size > 10_000) secrets.clear();
      secrets.set(sealed, secret);
    }
    return secret;
  };

  /** Outbox → one delivery per subscribed active webhook, in one short transaction. */
  async function dispatch(): Promise<number> {
    return db.transaction().execute(async (tx) => {
      const events = await repo.claimUndispatchedEvents(tx, DISPATCH_BATCH);
      if (events.length === 0) return 0;
      const hooks = await repo.activeWebhooksOf(tx, [...new Set(events.map((e) => e.store_id))]);
      const now = new Date();
      const rows = events.flatMap((event) =>
        hooks
          .filter((h) => h.store_id === event.store_id && subscribes(h.events, event.name))
          .map((h) => ({
            id: newId(),
            store_id: event.store_id,
            webhook_id: h.id,
            event_id: event.id,
            event_type: event.name,
            payload: deliveryBody(event.name, event.created_at, event.data),
            status: 'pending' as const,
            next_attempt_at: now,
            created_at: now,
            updated_at: now,
          })),
      );
      for (let i = 0; i < rows.length; i += 1000) await repo.insertDeliveries(tx, rows.slice(i, i + 1000));
      await repo.markDispatched(
        tx,
        events.map((e) => e.id),
      );
      return events.length;
    });
  }

  async function send(delivery: repo.ClaimedDelivery) {
    sending.set(delivery.id, { webhookId: delivery.webhook_id, since: Date.now() });
    let result: SendResult;
    try {
      result = await sendDelivery(options.fetch, {
        url: delivery.url,
        secret: secretOf(delivery.secret_sealed),
        deliveryId: delivery.id,
        event: delivery.event_type,
        body: delivery.payload,
        timeoutMs: options.timeoutMs,
      });
    } catch (error) {
      result = { statusCode: null, responseBody: null, error: (error as Error).message, durationMs: 0 };
    }
    finished.push({ delivery, result, at: new Date() });
    sending.delete(delivery.id);
    inFlight--;
    recordWhenReady();
  }

  /** A batch is ready: `batchSize` attempts finished, or all that was sent (else a timer decides). */
  const batchReady = () => finished.length >= batchSize || (finished.length > 0 && inFlight === 0);

  function recordWhenReady() {
    if (recording || finished.length === 0) return;
    if (batchReady()) startRecording();
    else
      recordTimer ??= setTimeout(() => {
        recordTimer = undefined;
        startRecording();
      }, RECORD_DELAY_MS);
  }

  /** Records what has finished, batch after batch, while a batch is ready; each batch frees room. */
  function startRecording() {
    if (recording || finished.length === 0) return;
    clearTimeout(recordTimer);
    recordTimer = undefined;
    recording = (async () => {
      do {
        const batch = finished;
        finished = [];
        await flush(batch);
        unrecorded -= batch.length;
        poke();
      } while (batchReady());
    })().finally(() => {
      recording = undefined;
      recordWhenReady(); // what finished meanwhile
    });
  }

  /**
   * Writes finished attempts: the attempts, the deliveries' new states and the webhooks' successes in
   * one statement, and, when some failed, the failure runs (and disabling) in the same transaction.
   * Notifies of disabled webhooks after the commit.
   */
  async function record(batch: Finished[]) {
    const disabled: { webhook: { id: string; store_id: string; url: string }; reason: string }[] = [];
    const attempts: repo.AttemptRecord[] = [];
    const successes = new Set<string>();
    const failures = new Map<string, Date>();
    const gone = new Map<string, string>();
    for (const { delivery, result, at } of batch) {
      const step = nextStep(
        { status: result.statusCode ?? undefined, retryAfterSeconds: result.retryAfterSeconds },
        delivery.attempts,
        options.retrySchedule,
      );
      const status: DeliveryStatus =
        step.kind === 'succeeded' ? 'succeeded' : step.kind === 'retry' ? 'pending' : 'failed';
      const next = step.kind === 'retry' ? new Date(at.getTime() + step.delaySeconds * 1000) : null;
      attempts.push({
        id: newId(),
        store_id: delivery.store_id,
        webhook_id: delivery.webhook_id,
        delivery_id: delivery.id,
        event_type: delivery.event_type,
        attempt: delivery.attempts,
        status,
        request_body: delivery.payload,
        status_code: result.statusCode,
        response_body: result.responseBody,
        error: result.error,
        duration_ms: result.durationMs,
        next_retry_at: next,
        created_at: at,
      });
      options.onAttempt?.(status);
      if (status === 'succeeded') successes.add(delivery.webhook_id);
      else failures.set(delivery.webhook_id, at);
      if (step.kind === 'failed' && step.disable) gone.set(delivery.webhook_id, step.disable);
    }
    if (failures.size === 0) await repo.recordAttempts(db, attempts, [...successes], new Date());
    else
      await db.transaction().execute(async (tx) => {
        await repo.recordAttempts(tx, attempts, [...successes], new Date());
        const limitMs = options.disableAfterHours * 3600_000;
        for (const [webhookId, at] of failures) {
          if (successes.has(webhookId)) continue;
          const run = await repo.recordWebhookFailure(tx, webhookId, at);
          const since = run?.failing_since;
          let reason = gone.get(webhookId);
          if (!reason && since && at.getTime() - since.getTime() >= limitMs)
            reason = `no successful delivery for ${options.disableAfterHours} hours`;
          if (reason) {
            const webhook = await repo.disableWebhook(tx, webhookId, reason);
            if (webhook) disabled.push({ webhook, reason });
          }
        }
      });
    for (const { webhook, reason } of disabled) {
      logger.warn({ webhookId: webhook.id, storeId: webhook.store_id, reason }, 'webhook disabled');
      await options
        .onDisabled?.(webhook, reason)
        .catch((error) =>
          logger.error({ err: error, webhookId: webhook.id }, 'could not send the webhook-disabled notice'),
        );
    }
  }

  async function flush(batch: Finished[]) {
    try {
      await record(batch);
    } catch (error) {
      // The deliveries stay claimed until their lease ends, then are sent again: at least once.
      logger.error({ err: error, count: batch.length }, 'could not record webhook attempts');
    }
  }

  async function prune() {
    const now = Date.now();
    if (now - lastPrune < 3600_000) return;
    lastPrune = now;
    const before = new Date(now - (options.retentionDays ?? 30) * 86_400_000);
    // Background work that may take long on a large log: not bound by the requests' statement timeout.
    const removed = await inLongTransaction(db, (tx) => repo.pruneOlderThan(tx, before));
    if (removed.attempts || removed.deliveries || removed.events) logger.info(removed, 'webhook log pruned');
  }

  /** Sleeps until poked or `ms` passed; the safety-net poll looks for events. */
  async function sleep(ms: number) {
    if (await wakeup.sleep(ms)) dispatchWanted = true;
  }

  /**
   * The sends in flight for longer than `slowAfterMs`: how many, their webhooks, and when the next
   * of the others turns slow. A receiver that answers only at the time-out would otherwise hold every
   * claim for that long, and the due deliveries of healthy receivers would wait behind it.
   */
  function slowSends(now: number) {
    let count = 0;
    const webhooks = new Set<string>();
    let nextAt = Number.POSITIVE_INFINITY;
    for (const { webhookId, since } of sending.values()) {
      if (now - since >= slowAfterMs) {
        count++;
        webhooks.add(webhookId);
      } else nextAt = Math.min(nextAt, since + slowAfterMs);
    }
    return { count, webhooks: [...webhooks], nextAt };
  }

  /**
   * Claims this worker may hold now: `concurrency` besides the slow sends, and never more than twice
   * `concurrency` unrecorded in all (what a crash can make receivers get twice).
   */
  const roomFor = (slow: { count: number }) =>
    Math.min(concurrency - (unrecorded - slow.count), 2 * concurrency - unrecorded);

  /** Dispatches if wanted, claims what there is room for; true if there may be more to claim now. */
  async function cycle(): Promise<boolean> {
    if (running) await wakeup.listen();
    let dispatched = 0;
    if (dispatchWanted || !wakeup.listening) {
      dispatchWanted = false;
      dispatched = await dispatch();
      if (dispatched >= DISPATCH_BATCH) dispatchWanted = true;
    }
    let full = false;
    const slow = slowSends(Date.now());
    const room = roomFor(slow);
    if (room >= batchSize && running) {
      const due = await repo.claimDueDeliveries(db, room, leaseMs, slow.webhooks);
      full = due.length === room;
      unrecorded += due.length;
      for (const delivery of due) {
        inFlight++;
        void send(delivery);
      }
    }
    await prune();
    return full || dispatched > 0;
  }

  async function run() {
    while (running) {
      let busy = false;
      try {
        busy = await cycle();
      } catch (error) {
        dispatchWanted = true;
        logger.error({ err: error }, 'webhook worker cycle failed; retrying');
        await sleep(1000);
        continue;
      }
      if (busy || dispatchWanted) continue;
      if (unrecorded > 0) {
        // Until a batch is recorded (room), a notification, a send turning slow (room, when there is
        // little) or, beside slow sends, the next delivery due to another webhook.
        const now = Date.now();
        const slow = slowSends(now);
        let wait = Math.min(pollMs, slow.nextAt - now);
        if (slow.count > 0 && roomFor(slow) >= batchSize) {
          const dueIn = await repo.secondsUntilNextDue(db, slow.webhooks).catch(() => null);
          if (dueIn !== null) wait = Math.min(wait, dueIn * 1000);
        }
        if (wait > 0) await sleep(wait);
        continue;
      }
      const dueIn = await repo.secondsUntilNextDue(db).catch(() => null);
      const wait = dueIn === null ? pollMs : Math.min(pollMs, Math.max(0, dueIn * 1000));
      if (wait > 0) await sleep(wait);
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    /** Stops claiming, lets in-flight sends finish, records them, releases the LISTEN connection. */
    async stop() {
      if (!running) return;
      running = false;
      poke();
      await loop;
      while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      while (recording || finished.length > 0) {
        startRecording();
        await recording;
      }
      await wakeup.close();
    },
    /** Wakes the loop now to look for events (after a commit in this process, or in tests). */
    poke() {
      dispatchWanted = true;
      poke();
    },
  };
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>;
