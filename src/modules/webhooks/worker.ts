import type { Logger } from 'pino';
import type { Db } from '../../platform/db/database.js';
import { newId } from '../../platform/ids.js';
import {
  type JobKind,
  type JobOutcome,
  type PeriodicTaskOptions,
  retentionTask,
} from '../../platform/jobs.js';
import type { SafeFetch } from '../../platform/net/safe-fetch.js';
import { EVENTS_CHANNEL } from '../../platform/outbox.js';
import { openSecret } from '../../platform/secret-box.js';
import { deliveryBody, subscribes } from './events.js';
import { nextStep } from './retry.js';
import { type SendResult, sendDelivery } from './send.js';
import * as repo from './webhooks.repository.js';
import type { DeliveryStatus } from './webhooks.tables.js';

export interface WebhookJobsOptions {
  db: Db;
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
  /** Deliveries claimed and not yet recorded, at most (besides slow sends). Default 64. */
  concurrency?: number;
  /**
   * A send in flight longer than this (ms) is slow: it stops counting against `concurrency`, and its
   * webhook gets no further claim until its slow sends end. Default: half the time-out, at most 1 s.
   */
  slowAfterMs?: number;
  /** Safety-net poll when no notification arrives (ms). */
  pollMs?: number;
}

/** Outbox events fanned out per dispatch transaction. */
const DISPATCH_BATCH = 500;

type Delivery = repo.ClaimedDelivery;
const webhooksOf = (deliveries: readonly Delivery[]) => [...new Set(deliveries.map((d) => d.webhook_id))];

/**
 * Webhook deliveries as a kind of job (platform/jobs.ts runs the loop): before each claim, committed
 * outbox events are fanned out into deliveries; due deliveries are claimed (SKIP LOCKED + lease),
 * posted outside any transaction, and their attempts recorded in batches, with the next attempt or
 * the final state, and the disabling of a webhook that kept failing. At most `concurrency` claimed
 * deliveries are unrecorded (what a crash can make a receiver get twice). The fairness rule: a
 * receiver that answers only at the time-out would otherwise hold every claim for that long, so its
 * slow sends stop counting and its webhook gets no further claim until they end.
 */
export function webhookDeliveryJobs(options: WebhookJobsOptions): JobKind<Delivery, SendResult> {
  const { db, logger } = options;
  const leaseMs = options.timeoutMs + 30_000;
  const secrets = new Map<string, string>();
  /**
   * Whether the outbox may hold undispatched events: set by a notification, a (re)started LISTEN,
   * the safety-net poll and a full dispatch batch. The loop also runs after every recorded batch,
   * and looking for events then would cost a transaction per cycle for nothing.
   */
  let dispatchWanted = true;

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

  /**
   * Writes finished attempts: the attempts, the deliveries' new states and the webhooks' successes in
   * one statement, and, when some failed, the failure runs (and disabling) in the same transaction.
   * Notifies of disabled webhooks after the commit.
   */
  async function record(batch: JobOutcome<Delivery, SendResult>[]) {
    const disabled: { webhook: { id: string; store_id: string; url: string }; reason: string }[] = [];
    const attempts: repo.AttemptRecord[] = [];
    const successes = new Set<string>();
    const failures = new Map<string, Date>();
    const gone = new Map<string, string>();
    for (const outcome of batch) {
      const { job: delivery, at } = outcome;
      const result: SendResult = outcome.ok
        ? outcome.result
        : { statusCode: null, responseBody: null, error: outcome.error.message, durationMs: 0 };
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

  return {
    name: 'webhook_delivery',
    channel: EVENTS_CHANNEL,
    concurrency: options.concurrency ?? 64,
    pollMs: options.pollMs,
    slowAfterMs: options.slowAfterMs ?? Math.min(1000, options.timeoutMs / 2),
    onAnnounced() {
      dispatchWanted = true;
    },
    /** Fans the outbox out when events may be waiting (or when nobody listens to their NOTIFY). */
    async beforeClaim({ listening }) {
      if (!dispatchWanted && listening) return false;
      dispatchWanted = false;
      const dispatched = await dispatch();
      if (dispatched >= DISPATCH_BATCH) dispatchWanted = true;
      return dispatched > 0;
    },
    claim: (limit, slow) => repo.claimDueDeliveries(db, limit, leaseMs, webhooksOf(slow)),
    perform: (delivery) =>
      sendDelivery(options.fetch, {
        url: delivery.url,
        secret: secretOf(delivery.secret_sealed),
        deliveryId: delivery.id,
        event: delivery.event_type,
        body: delivery.payload,
        timeoutMs: options.timeoutMs,
      }),
    succeeded: (result) => result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300,
    record,
    secondsUntilDue: (slow) => repo.secondsUntilNextDue(db, webhooksOf(slow)),
  };
}

/** Retention of the delivery log: attempts, finished deliveries and dispatched events. */
export const webhookLogRetention = (db: Db, logger: Logger, days = 30): PeriodicTaskOptions =>
  retentionTask('webhook_log_retention', { db, days, logger }, (tx, before) =>
    repo.pruneOlderThan(tx, before),
  );
