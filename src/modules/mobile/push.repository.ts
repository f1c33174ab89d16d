import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { type SqlText, sqlText } from '../../platform/db/sql-text.js';
import type { DevicePlatform, PushStatus } from './mobile.tables.js';

/** The channel a committed push is announced on; the push worker LISTENs to it. */
export const PUSH_CHANNEL = 'emporium_push';

/**
 * One notification for each of the customer's devices in the store, none when the customer turned
 * order updates off (no preferences row: on). Devices are read and notifications written by this
 * one `INSERT … SELECT` (ids by `emporium_uuid_v7()`), so it can join an order's write batch; it
 * returns a row per notification, which the caller's NOTIFY waits on.
 */
export function insertOrderPushes(input: {
  storeId: string;
  customerId: string;
  title: string;
  body: string;
  data: Record<string, string>;
}): SqlText {
  return sqlText`
    INSERT INTO push_notifications (id, store_id, customer_id, device_id, title, body, data)
    SELECT emporium_uuid_v7(), d.store_id, d.customer_id, d.id, ${input.title}::text, ${input.body}::text,
      ${JSON.stringify(input.data)}::jsonb
    FROM customer_devices d
    WHERE d.store_id = ${input.storeId} AND d.customer_id = ${input.customerId}
      AND NOT EXISTS (
        SELECT 1 FROM notification_preferences p
        WHERE p.customer_id = d.customer_id AND p.store_id = d.store_id AND NOT p.order_updates
      )
    ORDER BY d.created_at
    RETURNING 1`;
}

export interface ClaimedPush {
  id: string;
  store_id: string;
  customer_id: string;
  device_id: string;
  title: string;
  body: string;
  data: Record<string, string>;
  /** Including this one. */
  attempts: number;
  token: string;
  platform: DevicePlatform;
  /** The database's clock at the claim: a device registered after it is not the one that failed. */
  claimed_at: Date;
}

/**
 * Claims due notifications (SKIP LOCKED) and leases them for `leaseMs`; counts the attempt. Those of
 * a suspended store wait, unclaimed, until it is unsuspended (§14).
 */
export async function claimDuePushes(db: Executor, limit: number, leaseMs: number): Promise<ClaimedPush[]> {
  const result = await sql<ClaimedPush>`
    WITH due AS (
      SELECT n.id FROM push_notifications n
      JOIN stores s ON s.id = n.store_id AND s.status = 'active'
      WHERE n.status = 'pending' AND n.next_attempt_at <= now()
        AND (n.locked_until IS NULL OR n.locked_until < now())
      ORDER BY n.next_attempt_at
      LIMIT ${limit}
      FOR UPDATE OF n SKIP LOCKED
    )
    UPDATE push_notifications n
    SET locked_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = n.attempts + 1
    FROM due, customer_devices d
    WHERE n.id = due.id AND d.id = n.device_id
    RETURNING n.id, n.store_id, n.customer_id, n.device_id, n.title, n.body, n.data, n.attempts, d.token,
      d.platform, now() AS claimed_at`.execute(db);
  return result.rows;
}

export interface PushOutcome {
  id: string;
  status: PushStatus;
  /** When still pending: the next attempt. */
  next: Date | null;
  error: string | null;
}

/** Records attempts: sent (sent_at now), pending again at `next`, or failed; releases the lease. */
export async function recordPushOutcomes(db: Executor, outcomes: PushOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await sql`
    UPDATE push_notifications n
    SET status = u.status, next_attempt_at = COALESCE(u.next, n.next_attempt_at), error = u.error,
      locked_until = NULL, sent_at = CASE WHEN u.status = 'sent' THEN now() ELSE n.sent_at END
    FROM unnest(${sql.val(outcomes.map((o) => o.id))}::uuid[], ${sql.val(outcomes.map((o) => o.status))}::text[],
      ${sql.val(outcomes.map((o) => o.next))}::timestamptz[], ${sql.val(outcomes.map((o) => o.error))}::text[])
      AS u(id, status, next, error)
    WHERE n.id = u.id`.execute(db);
}

/**
 * Forgets devices whose token the provider declared dead (their queued notifications go with them),
 * unless the device registered again, or with another token, after the attempt began.
 */
export async function deleteDeadDevices(
  db: Executor,
  devices: { id: string; token: string; before: Date }[],
): Promise<number> {
  if (devices.length === 0) return 0;
  const result = await sql`
    DELETE FROM customer_devices d
    USING unnest(${sql.val(devices.map((x) => x.id))}::uuid[], ${sql.val(devices.map((x) => x.token))}::text[],
      ${sql.val(devices.map((x) => x.before))}::timestamptz[]) AS u(id, token, before)
    WHERE d.id = u.id AND d.token = u.token AND d.updated_at <= u.before`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Seconds until a pending notification is due (leased ones at their lease end); null: none pending. */
export async function secondsUntilNextPush(db: Executor): Promise<number | null> {
  const result = await sql<{ seconds: number | null }>`
    SELECT EXTRACT(EPOCH FROM (min(GREATEST(next_attempt_at, COALESCE(locked_until, next_attempt_at))) - now()))::float8
      AS seconds
    FROM push_notifications n JOIN stores s ON s.id = n.store_id AND s.status = 'active'
    WHERE n.status = 'pending'`.execute(db);
  const seconds = result.rows[0]?.seconds;
  return seconds === null || seconds === undefined ? null : Number(seconds);
}

/** Deletes sent and failed notifications created before `before`. */
export async function prunePushes(db: Executor, before: Date): Promise<number> {
  const result = await sql`
    DELETE FROM push_notifications WHERE status <> 'pending' AND created_at < ${before}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
