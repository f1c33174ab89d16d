import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { QueuedNotification } from './message.js';
import { NOTIFICATIONS_CHANNEL } from './notifications.queue.js';
import type { NotificationLogRow } from './notifications.serializers.js';
import type { NotificationStatus } from './notifications.tables.js';

/**
 * The SQL of the send job (claiming due messages with SKIP LOCKED and a lease, recording outcomes in
 * batches, retention) and of resends.
 */

/** A suspended store's messages wait, unclaimed and uncounted, until it is unsuspended (§14). */
const OF_ACTIVE_STORE = sql`EXISTS (SELECT 1 FROM stores s WHERE s.id = notifications.store_id AND s.status = 'active')`;

/** A claimed message: what the composer needs, and the number of this attempt. */
export interface ClaimedNotification extends QueuedNotification {
  /** Including this one (counted at the claim). */
  attempts: number;
}

/**
 * Claims due messages and leases them for `leaseMs`, counting the attempt, in one committed
 * statement: SKIP LOCKED so concurrent workers take different rows, the lease (`locked_until`) so a
 * message whose worker died mid-send is claimed again once it runs out.
 */
export async function claimDueNotifications(
  db: Executor,
  limit: number,
  leaseMs: number,
): Promise<ClaimedNotification[]> {
  const result = await sql<ClaimedNotification>`
    WITH due AS (
      SELECT id FROM notifications
      WHERE status = 'pending' AND next_attempt_at <= now()
        AND (locked_until IS NULL OR locked_until < now()) AND ${OF_ACTIVE_STORE}
      ORDER BY next_attempt_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE notifications n
    SET locked_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = n.attempts + 1
    FROM due
    WHERE n.id = due.id
    RETURNING n.id, n.store_id, n.kind, n.to_email, n.order_id, n.refs, n.test, n.attempts`.execute(db);
  return result.rows;
}

export interface NotificationOutcome {
  id: string;
  /** The attempt it is the outcome of: a stale worker's outcome never overwrites a later claim's. */
  attempt: number;
  status: NotificationStatus;
  /** When still pending: the next attempt. */
  next: Date | null;
  /** The rendered subject, when it rendered (kept even when the send then failed). */
  subject: string | null;
  lastError: string | null;
}

/**
 * Records outcomes in one statement: the status, the next attempt, the subject when rendered,
 * `last_error`, `sent_at` for a sent message; the lease is released. Only rows still on the attempt
 * that produced the outcome are written (a worker that outlived its lease finds its row re-claimed).
 */
export async function recordNotificationOutcomes(
  db: Executor,
  outcomes: NotificationOutcome[],
): Promise<void> {
  if (outcomes.length === 0) return;
  const column = <K extends keyof NotificationOutcome>(name: K) => sql.val(outcomes.map((o) => o[name]));
  await sql`
    UPDATE notifications n
    SET status = u.status, next_attempt_at = COALESCE(u.next, n.next_attempt_at),
      subject = COALESCE(u.subject, n.subject), last_error = u.last_error, locked_until = NULL,
      sent_at = CASE WHEN u.status = 'sent' THEN now() ELSE n.sent_at END
    FROM unnest(${column('id')}::uuid[], ${column('attempt')}::int[], ${column('status')}::text[],
      ${column('next')}::timestamptz[], ${column('subject')}::text[], ${column('lastError')}::text[])
      AS u(id, attempt, status, next, subject, last_error)
    WHERE n.id = u.id AND n.attempts = u.attempt AND n.status = 'pending'`.execute(db);
}

/** Seconds until a pending message can be claimed (leased ones at their lease's end); null: none. */
export async function secondsUntilNextNotification(db: Executor): Promise<number | null> {
  const result = await sql<{ seconds: number | null }>`
    SELECT EXTRACT(EPOCH FROM (min(GREATEST(next_attempt_at, COALESCE(locked_until, next_attempt_at))) - now()))::float8
      AS seconds
    FROM notifications WHERE status = 'pending' AND ${OF_ACTIVE_STORE}`.execute(db);
  const seconds = result.rows[0]?.seconds;
  return seconds === null || seconds === undefined ? null : Number(seconds);
}

/** Deletes sent and failed messages created before `before`. */
export async function pruneNotifications(db: Executor, before: Date): Promise<number> {
  const result = await sql`
    DELETE FROM notifications WHERE status <> 'pending' AND created_at < ${before}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * A new message repeating the store's message `id` (same kind, recipient, order, refs and test
 * flag; no dedupe key), pending now, and the worker woken at commit, in one statement. Undefined when
 * the store has no such message.
 */
export async function insertResend(
  db: Executor,
  storeId: string,
  id: string,
): Promise<NotificationLogRow | undefined> {
  const result = await sql<NotificationLogRow>`
    WITH resend AS (
      INSERT INTO notifications (id, store_id, kind, to_email, order_id, refs, resend_of, test)
      SELECT emporium_uuid_v7(), o.store_id, o.kind, o.to_email, o.order_id, o.refs, o.id, o.test
      FROM notifications o
      WHERE o.store_id = ${storeId}::uuid AND o.id = ${id}::uuid
      RETURNING id, kind, to_email, subject, status, attempts, last_error, order_id, created_at, sent_at
    )
    SELECT r.*, (SELECT pg_notify(${NOTIFICATIONS_CHANNEL}, '')) AS notified FROM resend r`.execute(db);
  const row = result.rows[0];
  if (!row) return undefined;
  const { notified: _, ...record } = row as NotificationLogRow & { notified?: unknown };
  return record;
}
