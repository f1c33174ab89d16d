import { MAIL_RETRY_SCHEDULE_MS } from './kinds.js';

/**
 * What becomes of a notification after one attempt (pure): sent, pending again after a delay, or
 * failed for good. Contract §13: a network error or an SMTP 4xx answer is retried on the schedule
 * (± 10 %); an SMTP 5xx answer, or a template that does not render, fails the message at once.
 */
export type MailStep = { status: 'sent' } | { status: 'pending'; delayMs: number } | { status: 'failed' };

/** How a send went wrong, as the mailer's MailError (or any error) tells it. */
export interface SendFailure {
  /** nodemailer's code (`ECONNECTION`, `ETIMEDOUT`, `EAUTH`, `EENVELOPE`…). */
  code?: string;
  /** The SMTP server's reply code, when it answered. */
  responseCode?: number;
}

/** Codes of a relay that was not reached or not usable right now: nothing wrong with the message. */
const TRANSIENT_CODES = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ETLS',
  'EPROTOCOL',
  'ECLOSED',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  // Refused credentials are the operator's to fix (SMTP_URL); every message would fail with them, so
  // they wait on the schedule rather than fail the store's mail for good.
  'EAUTH',
]);

/** Whether a failed send is worth another attempt: a network error, an SMTP 4xx, the relay's login. */
export function isTransientSendFailure(failure: SendFailure): boolean {
  if (failure.code === 'EAUTH') return true;
  const reply = failure.responseCode;
  if (reply !== undefined) return reply >= 400 && reply < 500;
  return failure.code === undefined || TRANSIENT_CODES.has(failure.code);
}

/**
 * The delay before the next attempt after attempt number `attempt` (1 for the first) failed in a
 * way worth retrying, or undefined when the schedule is spent. `random` in [0, 1): ± 10 % jitter.
 */
export function retryDelayMs(
  attempt: number,
  schedule: readonly number[] = MAIL_RETRY_SCHEDULE_MS,
  random: number = Math.random(),
): number | undefined {
  const base = schedule[attempt - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (0.9 + 0.2 * random));
}

/** The step after attempt `attempt`: `transient` says whether its failure is worth retrying. */
export function nextMailStep(
  outcome: { sent: true } | { sent: false; transient: boolean },
  attempt: number,
  schedule: readonly number[] = MAIL_RETRY_SCHEDULE_MS,
  random: number = Math.random(),
): MailStep {
  if (outcome.sent) return { status: 'sent' };
  if (!outcome.transient) return { status: 'failed' };
  const delayMs = retryDelayMs(attempt, schedule, random);
  return delayMs === undefined ? { status: 'failed' } : { status: 'pending', delayMs };
}
