import { sql } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/database.js';
import { newId } from '../../platform/ids.js';
import type { SafeFetch } from '../../platform/net/safe-fetch.js';
import { EVENTS_CHANNEL } from '../../platform/outbox.js';
import { openSecret } from '../../platform/secret-box.js';
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
  /** Safety-net poll when no notification arrives (ms). */
  pollMs?: number;
  retentionDays?: number;
}

interface Finished {
  delivery: repo.ClaimedDelivery;
  result: SendResult;
  at: Date;
}

/**
 * The webhook worker: fans committed outbox events out into deliveries, claims due deliveries
 * (SKIP LOCKED + lease), posts them outside any transaction with at most `concurrency` in flight,
 * and records the attempts in batches. Woken by LISTEN/NOTIFY at each commit, by its own finished
 * sends, and by a slow poll as a safety net.
 */
export function createWebhookWorker(options: WorkerOptions) {
  const { db, logger } = options;
  const concurrency = options.concurrency ?? 64;
  const pollMs = options.pollMs ?? 5_000;
  const leaseMs = options.timeoutMs + 30_000;
  const secrets = new Map<string, string>();
  let running = false;
  let inFlight = 0;
  let finished: Finished[] = [];
  let wake: (() => void) | undefined;
  let listener: pg.PoolClient | undefined;
  let loop: Promise<void> | undefined;
  let lastPrune = 0;

  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

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
      const events = await repo.claimUndispatchedEvents(tx, 500);
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
    inFlight--;
    poke();
  }

  /** Writes finished attempts in one transaction; disables webhooks that must be; notifies after. */
  async function record(batch: Finished[]) {
    const disabled: { webhook: { id: string; store_id: string; url: string }; reason: string }[] = [];
    await db.transaction().execute(async (tx) => {
      const attempts = [];
      const updates: { id: string; status: DeliveryStatus; next: Date | null }[] = [];
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
        updates.push({ id: delivery.id, status, next });
        options.onAttempt?.(status);
        if (status === 'succeeded') successes.add(delivery.webhook_id);
        else failures.set(delivery.webhook_id, at);
        if (step.kind === 'failed' && step.disable) gone.set(delivery.webhook_id, step.disable);
      }
      await repo.insertAttempts(tx, attempts);
      await finishDeliveries(tx, updates);
      await repo.recordWebhookSuccess(tx, [...successes], new Date());
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

  async function flush() {
    if (finished.length === 0) return;
    const batch = finished;
    finished = [];
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
    const removed = await repo.pruneOlderThan(db, before);
    if (removed.attempts || removed.deliveries || removed.events) logger.info(removed, 'webhook log pruned');
  }

  async function listen() {
    try {
      listener = await options.pool.connect();
      listener.on('notification', poke);
      listener.on('error', (error) => {
        logger.warn({ err: error }, 'worker LISTEN connection lost; polling until it is back');
        listener?.release(true);
        listener = undefined;
      });
      await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch (error) {
      listener?.release(true);
      listener = undefined;
      logger.warn({ err: error }, 'worker could not LISTEN; polling');
    }
  }

  async function sleep(ms: number) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async function cycle(): Promise<boolean> {
    await flush();
    if (!listener && running) await listen();
    const dispatched = await dispatch();
    let claimed = 0;
    const room = concurrency - inFlight;
    if (room > 0 && running) {
      const due = await repo.claimDueDeliveries(db, room, leaseMs);
      claimed = due.length;
      for (const delivery of due) {
        inFlight++;
        void send(delivery);
      }
    }
    await prune();
    return dispatched > 0 || claimed > 0 || finished.length > 0;
  }

  async function run() {
    while (running) {
      let busy = false;
      try {
        busy = await cycle();
      } catch (error) {
        logger.error({ err: error }, 'webhook worker cycle failed; retrying');
        await sleep(1000);
        continue;
      }
      if (busy) continue;
      if (inFlight > 0) {
        await sleep(pollMs);
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
      await flush();
      if (listener) {
        await listener.query(`UNLISTEN ${EVENTS_CHANNEL}`).catch(() => undefined);
        listener.release();
        listener = undefined;
      }
    },
    /** Wakes the loop now (after a commit in this process, or in tests). */
    poke,
  };
}

async function finishDeliveries(
  tx: Db,
  updates: { id: string; status: DeliveryStatus; next: Date | null }[],
) {
  if (updates.length === 0) return;
  await sql`
    UPDATE webhook_deliveries d
    SET status = u.status, next_attempt_at = u.next, locked_until = NULL, updated_at = now()
    FROM unnest(${sql.val(updates.map((u) => u.id))}::uuid[], ${sql.val(updates.map((u) => u.status))}::text[],
      ${sql.val(updates.map((u) => u.next))}::timestamptz[]) AS u(id, status, next)
    WHERE d.id = u.id`.execute(tx);
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>;
