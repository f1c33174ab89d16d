import type pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/database.js';
import {
  createJobRunner,
  type JobKind,
  type PeriodicTaskOptions,
  retentionTask,
} from '../../platform/jobs.js';
import * as repo from './push.repository.js';
import type { PushProvider, PushResult } from './push-providers.js';

/** Seconds before the 2nd, 3rd and 4th attempts; a 4th failure is final. */
export const PUSH_RETRY_SCHEDULE = [30, 120, 600] as const;

/**
 * Seconds until the next attempt after attempt number `attempt` failed in a retryable way (pure), or
 * undefined when the schedule is spent. ±10 % jitter from `random`; a longer Retry-After wins.
 */
export function pushRetryDelay(
  attempt: number,
  schedule: readonly number[],
  retryAfterSeconds?: number,
  random: number = Math.random(),
): number | undefined {
  const base = schedule[attempt - 1];
  if (base === undefined) return undefined;
  return Math.max(base * (0.9 + 0.2 * random), retryAfterSeconds ?? 0);
}

export interface PushJobsOptions {
  db: Db;
  provider: PushProvider;
  logger: Logger;
  /** Notifications claimed and not yet recorded, at most. Default 32. */
  concurrency?: number;
  /** Safety-net poll when no notification arrives (ms). Default 5 s. */
  pollMs?: number;
  /** A claimed notification is claimed again after this long (a crashed worker). Default 60 s. */
  leaseMs?: number;
  retrySchedule?: readonly number[];
}

type Push = repo.ClaimedPush;

/**
 * Push notifications as a kind of job (platform/jobs.ts runs the loop): due notifications are claimed
 * (SKIP LOCKED + lease), handed to the provider outside any transaction, and their outcomes recorded
 * in batches: sent, pending again on the retry schedule, or failed; a dead token deletes its device.
 */
export function pushNotificationJobs(options: PushJobsOptions): JobKind<Push, PushResult> {
  const { db, provider, logger } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  const schedule = options.retrySchedule ?? PUSH_RETRY_SCHEDULE;
  return {
    name: 'push_notification',
    channel: repo.PUSH_CHANNEL,
    concurrency: options.concurrency ?? 32,
    pollMs: options.pollMs,
    claim: (limit) => repo.claimDuePushes(db, limit, leaseMs),
    perform: (push) =>
      provider.send({
        token: push.token,
        platform: push.platform,
        title: push.title,
        body: push.body,
        data: push.data,
      }),
    succeeded: (result) => result.ok,
    async record(batch) {
      const outcomes: repo.PushOutcome[] = [];
      const dead: { id: string; token: string; before: Date }[] = [];
      for (const outcome of batch) {
        const push = outcome.job;
        const result: PushResult = outcome.ok
          ? outcome.result
          : { ok: false, retry: true, invalidToken: false, error: outcome.error.message };
        if (result.ok) {
          outcomes.push({ id: push.id, status: 'sent', next: null, error: null });
          continue;
        }
        const delay = result.retry
          ? pushRetryDelay(push.attempts, schedule, result.retryAfterSeconds)
          : undefined;
        if (delay !== undefined) {
          const next = new Date(Date.now() + delay * 1000);
          outcomes.push({ id: push.id, status: 'pending', next, error: result.error });
        } else {
          outcomes.push({ id: push.id, status: 'failed', next: null, error: result.error });
        }
        if (result.invalidToken)
          dead.push({ id: push.device_id, token: push.token, before: push.claimed_at });
        logger.warn(
          {
            pushId: push.id,
            storeId: push.store_id,
            deviceId: push.device_id,
            attempt: push.attempts,
            retry: delay !== undefined,
            invalidToken: result.invalidToken,
            error: result.error,
          },
          'push notification not delivered',
        );
      }
      const deleted = await db.transaction().execute(async (tx) => {
        await repo.recordPushOutcomes(tx, outcomes);
        return repo.deleteDeadDevices(tx, dead);
      });
      if (deleted) logger.info({ count: deleted }, 'devices with dead push tokens forgotten');
    },
    secondsUntilDue: () => repo.secondsUntilNextPush(db),
  };
}

/** Retention of the push log: sent and failed notifications. */
export const pushLogRetention = (db: Db, logger: Logger, days = 30): PeriodicTaskOptions =>
  retentionTask('push_log_retention', { db, days, logger }, async (tx, before) => ({
    notifications: await repo.prunePushes(tx, before),
  }));

export interface PushWorkerOptions extends PushJobsOptions {
  /** A pool to take the LISTEN connection from; without one the worker polls (and can be poked). */
  pool?: pg.Pool;
  /** Sent and failed notifications are deleted after this many days. Default 30. */
  retentionDays?: number;
}

/**
 * The push notifications and their log retention on a job runner of their own: what the background
 * worker (src/worker.ts) runs beside its other kinds, alone.
 */
export function createPushWorker(options: PushWorkerOptions) {
  const runner = createJobRunner({ pool: options.pool, logger: options.logger });
  const pushes = runner.add(pushNotificationJobs(options));
  runner.every(pushLogRetention(options.db, options.logger, options.retentionDays));
  return { start: runner.start, stop: runner.stop, poke: pushes.poke };
}

export type PushWorker = ReturnType<typeof createPushWorker>;
