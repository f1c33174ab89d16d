import { type Insertable, sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { DeliveryStatus, WebhookAttemptsTable } from './webhooks.tables.js';

/**
 * The SQL of the dispatcher and the delivery worker: fanning events out, claiming due deliveries
 * (SKIP LOCKED with a lease), recording attempts, success and failure runs, retention. Re-exported
 * by webhooks.repository.ts, so the module has one repository to import.
 */

export interface PendingEvent {
  id: string;
  store_id: string;
  name: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/** The oldest undispatched events, locked so concurrent dispatchers take different ones. */
export async function claimUndispatchedEvents(db: Executor, limit: number): Promise<PendingEvent[]> {
  const result = await sql<PendingEvent>`
    SELECT id, store_id, name, data, created_at FROM events
    WHERE dispatched_at IS NULL
    ORDER BY seq
    LIMIT ${limit}
    FOR UPDATE SKIP LOCKED`.execute(db);
  return result.rows;
}

export async function markDispatched(db: Executor, ids: string[]) {
  if (ids.length)
    await db.updateTable('events').set({ dispatched_at: new Date() }).where('id', 'in', ids).execute();
}

/** Active webhooks of these stores, for fan-out. */
export function activeWebhooksOf(db: Executor, storeIds: string[]) {
  if (storeIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('webhooks')
    .select(['id', 'store_id', 'events'])
    .where('store_id', 'in', storeIds)
    .where('active', '=', true)
    .execute();
}

export interface ClaimedDelivery {
  id: string;
  store_id: string;
  webhook_id: string;
  event_type: string;
  payload: string;
  attempts: number;
  url: string;
  secret_sealed: string;
}

/** The error of an attempt whose outcome was never recorded. */
export const LOST_ATTEMPT_ERROR = 'worker stopped before the outcome was recorded';

/**
 * Records the lost attempts among the deliveries of a claim: a delivery is claimed again while still
 * leased (`locked_until` set: the CTE `due` says `lost`) only once that lease ran out with its
 * attempt unrecorded, its worker having stopped mid-delivery. The attempt is logged as it was: its
 * number, at the claim's time (`updated_at`), no status code, an error saying so, and duration 0
 * (unknown). So the delivery log reads attempt 1 (lost), attempt 2 (…), never a 2 without a 1.
 * Reads the deliveries as they were before the claim's own UPDATE (one snapshot).
 */
const insertLostAttempts = sql`
  INSERT INTO webhook_attempts (id, store_id, webhook_id, delivery_id, event_type, attempt, status,
    request_body, error, duration_ms, next_retry_at, created_at)
  SELECT emporium_uuid_v7(), d.store_id, d.webhook_id, d.id, d.event_type, d.attempts, d.status, d.payload,
    ${LOST_ATTEMPT_ERROR}, 0, CASE WHEN d.status = 'pending' THEN now() END, d.updated_at
  FROM due JOIN webhook_deliveries d ON d.id = due.id
  WHERE due.lost AND d.attempts > 0`;

/** `AND` the delivery's webhook is not one of these (none: no condition at all). */
const notOf = (webhookIds: readonly string[]) =>
  webhookIds.length === 0 ? sql`` : sql`AND d.webhook_id <> ALL(${sql.val(webhookIds)}::uuid[])`;

/**
 * Claims due deliveries of active webhooks with a lease: SKIP LOCKED so concurrent workers take
 * different rows, and the lease (locked_until) so a worker that dies mid-delivery loses its claim
 * and another takes the delivery again. Counts the attempt at claim time, and logs the lost attempt
 * of a delivery whose lease ran out (insertLostAttempts). Deliveries of `skipWebhookIds` (receivers
 * this worker is waiting on) are left for later, and so are those of a store that is not active (a
 * suspended store's wait, uncounted, until it is unsuspended; §14).
 */
export async function claimDueDeliveries(
  db: Executor,
  limit: number,
  leaseMs: number,
  skipWebhookIds: readonly string[] = [],
): Promise<ClaimedDelivery[]> {
  const result = await sql<ClaimedDelivery>`
    WITH due AS (
      SELECT d.id, d.locked_until IS NOT NULL AS lost FROM webhook_deliveries d
      JOIN webhooks w ON w.id = d.webhook_id AND w.active
      JOIN stores s ON s.id = d.store_id AND s.status = 'active'
      WHERE d.status = 'pending' AND d.next_attempt_at <= now()
        AND (d.locked_until IS NULL OR d.locked_until < now()) ${notOf(skipWebhookIds)}
      ORDER BY d.next_attempt_at
      LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED
    ), lost AS (${insertLostAttempts})
    UPDATE webhook_deliveries d
    SET locked_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = d.attempts + 1,
      updated_at = now()
    FROM due, webhooks w
    WHERE d.id = due.id AND w.id = d.webhook_id
    RETURNING d.id, d.store_id, d.webhook_id, d.event_type, d.payload, d.attempts, w.url, w.secret_sealed`.execute(
    db,
  );
  return result.rows;
}

/**
 * Seconds until a pending delivery can next be claimed (null: none pending): the same rows as
 * `claimDueDeliveries` (active webhooks only, none of `skipWebhookIds`), each once both due and out
 * of its lease. Counting a delivery leased to another worker, or one of a disabled webhook or a
 * suspended store, would
 * say "now" for a row no claim can take, and an idle worker would loop on the database without
 * sleeping.
 */
export async function secondsUntilNextDue(
  db: Executor,
  skipWebhookIds: readonly string[] = [],
): Promise<number | null> {
  const result = await sql<{ seconds: number | null }>`
    SELECT EXTRACT(EPOCH FROM (min(GREATEST(d.next_attempt_at, d.locked_until)) - now()))::float8 AS seconds
    FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.active
      JOIN stores s ON s.id = d.store_id AND s.status = 'active'
    WHERE d.status = 'pending' ${notOf(skipWebhookIds)}`.execute(db);
  const seconds = result.rows[0]?.seconds;
  return seconds === null || seconds === undefined ? null : Number(seconds);
}

/** One attempt as the worker records it (the table's row, with its creation time already a Date). */
export type AttemptRecord = Omit<WebhookAttemptsTable, 'created_at'> & { created_at: Date };

/**
 * Records a batch of attempts in one statement (so, atomically): the attempt rows, each delivery's
 * new state (its status and next attempt, as the attempt says) with its lease released, and a
 * success on the webhooks that had one. One round trip however large the batch. A webhook that is
 * not failing keeps a `last_success_at` under a second old as it is: busy workers would otherwise
 * rewrite (and queue on) the same webhook row with every batch.
 */
export async function recordAttempts(
  db: Executor,
  attempts: AttemptRecord[],
  succeededWebhookIds: string[],
  at: Date,
) {
  if (attempts.length === 0) return;
  const column = (name: keyof AttemptRecord) => sql.val(attempts.map((a) => a[name]));
  await sql`
    WITH attempt AS (
      INSERT INTO webhook_attempts (id, store_id, webhook_id, delivery_id, event_type, attempt, status,
        request_body, status_code, response_body, error, duration_ms, next_retry_at, created_at)
      SELECT * FROM unnest(${column('id')}::uuid[], ${column('store_id')}::uuid[],
        ${column('webhook_id')}::uuid[], ${column('delivery_id')}::uuid[], ${column('event_type')}::text[],
        ${column('attempt')}::int[], ${column('status')}::text[], ${column('request_body')}::text[],
        ${column('status_code')}::int[], ${column('response_body')}::text[], ${column('error')}::text[],
        ${column('duration_ms')}::int[], ${column('next_retry_at')}::timestamptz[],
        ${column('created_at')}::timestamptz[])
      RETURNING delivery_id, status, next_retry_at
    ), delivery AS (
      UPDATE webhook_deliveries d
      SET status = a.status, next_attempt_at = a.next_retry_at, locked_until = NULL, updated_at = now()
      FROM attempt a
      WHERE d.id = a.delivery_id
    )
    UPDATE webhooks SET last_success_at = ${at}, consecutive_failures = 0, failing_since = NULL
    WHERE id = ANY(${sql.val(succeededWebhookIds)}::uuid[])
      AND (consecutive_failures <> 0 OR failing_since IS NOT NULL OR last_success_at IS NULL
        OR last_success_at < ${at}::timestamptz - interval '1 second')`.execute(db);
}

/**
 * Claims one delivery for a send now (manual retry) unless a send of it is under way: leases it,
 * counts the attempt and logs a lost one as claimDueDeliveries does. Returns the attempt's number,
 * or undefined when it is leased.
 */
export async function claimDelivery(
  db: Executor,
  storeId: string,
  id: string,
  leaseMs: number,
): Promise<number | undefined> {
  const result = await sql<{ attempts: number }>`
    WITH due AS (
      SELECT id, locked_until IS NOT NULL AS lost FROM webhook_deliveries
      WHERE store_id = ${storeId} AND id = ${id} AND (locked_until IS NULL OR locked_until < now())
      FOR UPDATE
    ), lost AS (${insertLostAttempts})
    UPDATE webhook_deliveries d
    SET locked_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = d.attempts + 1,
      updated_at = now()
    FROM due WHERE d.id = due.id
    RETURNING d.attempts`.execute(db);
  return result.rows[0]?.attempts;
}

export async function insertAttempts(db: Executor, rows: Insertable<WebhookAttemptsTable>[]) {
  if (rows.length) await db.insertInto('webhook_attempts').values(rows).execute();
}

export async function finishDelivery(
  db: Executor,
  id: string,
  patch: { status: DeliveryStatus; next_attempt_at: Date | null },
) {
  await db
    .updateTable('webhook_deliveries')
    .set({ ...patch, locked_until: null, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** A success resets the failure run of a webhook. */
export async function recordWebhookSuccess(db: Executor, webhookIds: string[], at: Date) {
  if (webhookIds.length === 0) return;
  await db
    .updateTable('webhooks')
    .set({ last_success_at: at, consecutive_failures: 0, failing_since: null })
    .where('id', 'in', webhookIds)
    .execute();
}

/** The outcome of a test send: shown beside, never counted in, the webhook's health. */
export async function recordWebhookTest(
  db: Executor,
  storeId: string,
  webhookId: string,
  test: { last_test_at: Date; last_test_succeeded: boolean; last_test_status_code: number | null },
) {
  await db
    .updateTable('webhooks')
    .set(test)
    .where('store_id', '=', storeId)
    .where('id', '=', webhookId)
    .execute();
}

/** Counts a failure; returns the webhook's failure run to decide on disabling it. */
export async function recordWebhookFailure(db: Executor, webhookId: string, at: Date) {
  return db
    .updateTable('webhooks')
    .set((eb) => ({
      consecutive_failures: eb('consecutive_failures', '+', 1),
      failing_since: eb.fn.coalesce('failing_since', eb.val(at)),
    }))
    .where('id', '=', webhookId)
    .returning(['id', 'store_id', 'url', 'active', 'failing_since', 'last_success_at'])
    .executeTakeFirst();
}

/** Disables an active webhook; returns it if this call disabled it (so the notice is sent once). */
export function disableWebhook(db: Executor, webhookId: string, reason: string) {
  return db
    .updateTable('webhooks')
    .set({ active: false, disabled_reason: reason, updated_at: new Date() })
    .where('id', '=', webhookId)
    .where('active', '=', true)
    .returning(['id', 'store_id', 'url'])
    .executeTakeFirst();
}

export function pendingDeliveriesCount(db: Executor) {
  return db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
}

/** Retention: attempts, finished deliveries and dispatched events older than `before`. */
export async function pruneOlderThan(db: Executor, before: Date) {
  const attempts = await db
    .deleteFrom('webhook_attempts')
    .where('created_at', '<', before)
    .executeTakeFirst();
  const deliveries = await db
    .deleteFrom('webhook_deliveries')
    .where('created_at', '<', before)
    .where('status', '<>', 'pending')
    .executeTakeFirst();
  const events = await db
    .deleteFrom('events')
    .where('created_at', '<', before)
    .where('dispatched_at', 'is not', null)
    .executeTakeFirst();
  return {
    attempts: Number(attempts.numDeletedRows),
    deliveries: Number(deliveries.numDeletedRows),
    events: Number(events.numDeletedRows),
  };
}
