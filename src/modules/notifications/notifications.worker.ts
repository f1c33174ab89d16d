import type { Logger } from 'pino';
import { type Db, isDatabaseUnavailable } from '../../platform/db/database.js';
import {
  type JobKind,
  type JobOutcome,
  type PeriodicTaskOptions,
  retentionTask,
} from '../../platform/jobs.js';
import type { Mailer } from '../../platform/mail.js';
import { MAIL_RETRY_SCHEDULE_MS } from './kinds.js';
import { isTransientSendFailure, nextMailStep, type SendFailure } from './mail-retry.js';
import type { NotificationComposer } from './message.js';
import * as repo from './notifications.delivery.repository.js';
import { NOTIFICATIONS_CHANNEL } from './notifications.queue.js';

/** `last_error` of a message written to the log because SMTP_URL is unset (contract §13). */
export const LOGGED_NOT_SENT = 'no SMTP_URL: written to the log';

export interface NotificationJobsOptions {
  db: Db;
  composer: NotificationComposer;
  mailer: Mailer;
  logger: Logger;
  /** Delays before the 2nd, 3rd… attempts (ms, ± 10 %). Default: contract §13's. */
  retryScheduleMs?: readonly number[];
  /**
   * A claimed message is claimed again after this long (its worker died mid-send). Longer than a
   * compose and a send can take (the mailer's time-outs); a send that outlives it may go twice, under
   * the same Message-ID. Default 60 s.
   */
  leaseMs?: number;
  /** Messages claimed and not yet recorded, at most. Default 32. */
  concurrency?: number;
  /** Safety-net poll when no notification arrives (ms). Default 5 s. */
  pollMs?: number;
}

type Claimed = repo.ClaimedNotification;

/** What one attempt came to; `subject` once the message rendered. */
export type AttemptResult =
  | { ok: true; subject: string; logged: boolean }
  | { ok: false; subject: string | null; transient: boolean; error: string };

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The stores' e-mails as a kind of job (platform/jobs.ts runs the loop): due messages are claimed
 * (SKIP LOCKED + a lease, the attempt counted), composed and handed to the mailer outside any
 * transaction, and their outcomes recorded in batches: sent, pending again on the retry schedule
 * (network errors, SMTP 4xx), or failed (SMTP 5xx, a template that does not render, the schedule
 * spent). A crash between send and record sends the message again, under the same Message-ID.
 */
export function notificationJobs(options: NotificationJobsOptions): JobKind<Claimed, AttemptResult> {
  const { db, composer, mailer, logger } = options;
  const schedule = options.retryScheduleMs ?? MAIL_RETRY_SCHEDULE_MS;
  const leaseMs = options.leaseMs ?? 60_000;

  async function attempt(message: Claimed): Promise<AttemptResult> {
    let composed: Awaited<ReturnType<NotificationComposer['compose']>>;
    try {
      composed = await composer.compose(message);
    } catch (error) {
      // A template that fails or a record that is gone fails as often as it is tried; a database
      // that is away is worth the schedule.
      const transient = isDatabaseUnavailable(error);
      const reason = transient ? 'the database was unavailable' : 'the message could not be rendered';
      return { ok: false, subject: null, transient, error: `${reason}: ${messageOf(error)}` };
    }
    try {
      const sent = await mailer.send({
        to: message.to_email,
        fromName: composed.storeName,
        replyTo: composed.replyTo,
        messageKey: message.id,
        subject: composed.subject,
        html: composed.html,
        text: composed.text,
      });
      return { ok: true, subject: composed.subject, logged: sent.logged };
    } catch (error) {
      // MailError's message names the relay without its credentials.
      const transient = isTransientSendFailure(error as SendFailure);
      return { ok: false, subject: composed.subject, transient, error: messageOf(error) };
    }
  }

  async function record(batch: JobOutcome<Claimed, AttemptResult>[]) {
    const outcomes: repo.NotificationOutcome[] = batch.map(({ job, at, ...outcome }) => {
      const result: AttemptResult = outcome.ok
        ? outcome.result
        : { ok: false, subject: null, transient: true, error: messageOf(outcome.error) };
      const step = nextMailStep(
        result.ok ? { sent: true } : { sent: false, transient: result.transient },
        job.attempts,
        schedule,
      );
      if (!result.ok)
        logger.warn(
          {
            notificationId: job.id,
            storeId: job.store_id,
            kind: job.kind,
            attempt: job.attempts,
            retry: step.status === 'pending',
            error: result.error,
          },
          'e-mail not sent',
        );
      return {
        id: job.id,
        attempt: job.attempts,
        status: step.status,
        next: step.status === 'pending' ? new Date(at.getTime() + step.delayMs) : null,
        subject: result.subject,
        lastError: result.ok ? (result.logged ? LOGGED_NOT_SENT : null) : result.error,
      };
    });
    await repo.recordNotificationOutcomes(db, outcomes);
  }

  return {
    name: 'notification_email',
    channel: NOTIFICATIONS_CHANNEL,
    concurrency: options.concurrency ?? 32,
    pollMs: options.pollMs,
    claim: (limit) => repo.claimDueNotifications(db, limit, leaseMs),
    perform: attempt,
    succeeded: (result) => result.ok,
    record,
    secondsUntilDue: () => repo.secondsUntilNextNotification(db),
  };
}

/** Retention of the e-mail log: sent and failed messages older than `days` (90). */
export const notificationLogRetention = (db: Db, logger: Logger, days = 90): PeriodicTaskOptions =>
  retentionTask('notification_log_retention', { db, days, logger }, async (tx, before) => ({
    notifications: await repo.pruneNotifications(tx, before),
  }));
