import { type Insertable, type Selectable, sql } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';
import type { StripeAccountsTable, StripePaymentStatus, StripePaymentsTable } from './payments.tables.js';

export type StripeAccountRow = Selectable<StripeAccountsTable>;
export type StripePaymentRow = Selectable<StripePaymentsTable>;

export function findAccount(db: Executor, storeId: string): Promise<StripeAccountRow | undefined> {
  return db.selectFrom('stripe_accounts').selectAll().where('store_id', '=', storeId).executeTakeFirst();
}

/**
 * The account, if any, with the store's Stripe settings locked until the transaction ends: an
 * advisory lock, since before the first connection there is no row to lock.
 */
export async function lockAccount(tx: Tx, storeId: string): Promise<StripeAccountRow | undefined> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`stripe-account:${storeId}`}))`.execute(tx);
  return findAccount(tx, storeId);
}

/** Connects (or reconnects with new keys): one account per store. */
export async function upsertAccount(db: Executor, row: Insertable<StripeAccountsTable>, version?: Date) {
  const now = version ?? new Date();
  return db
    .insertInto('stripe_accounts')
    .values({ ...row, enabled: true, created_at: now, updated_at: now })
    .onConflict((oc) =>
      oc.column('store_id').doUpdateSet({
        enabled: true,
        publishable_key: row.publishable_key,
        secret_key_sealed: row.secret_key_sealed,
        secret_key_last4: row.secret_key_last4,
        webhook_secret_sealed: row.webhook_secret_sealed,
        updated_at: now,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Disconnects: new checkouts refuse Stripe; the keys stay for the payments still in flight. */
export async function disableAccount(db: Executor, storeId: string) {
  await db
    .updateTable('stripe_accounts')
    .set({ enabled: false, updated_at: new Date() })
    .where('store_id', '=', storeId)
    .execute();
}

export async function insertPayment(tx: Tx, row: Insertable<StripePaymentsTable>) {
  await tx.insertInto('stripe_payments').values(row).execute();
}

export function findPayment(db: Executor, storeId: string, orderId: string) {
  return db
    .selectFrom('stripe_payments')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .executeTakeFirst();
}

export function findPaymentByIntent(db: Executor, storeId: string, paymentIntentId: string) {
  return db
    .selectFrom('stripe_payments')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('payment_intent_id', '=', paymentIntentId)
    .executeTakeFirst();
}

export async function setPaymentIntent(
  db: Executor,
  storeId: string,
  orderId: string,
  paymentIntentId: string,
) {
  await db
    .updateTable('stripe_payments')
    .set({ payment_intent_id: paymentIntentId, updated_at: new Date() })
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .where('payment_intent_id', 'is', null)
    .execute();
}

/** The payment row locked for the change of its status (first in this module's lock order). */
export function lockPayment(
  tx: Tx,
  storeId: string,
  by: { orderId: string } | { paymentIntentId: string },
): Promise<StripePaymentRow | undefined> {
  let query = tx.selectFrom('stripe_payments').selectAll().where('store_id', '=', storeId);
  query =
    'orderId' in by
      ? query.where('order_id', '=', by.orderId)
      : query.where('payment_intent_id', '=', by.paymentIntentId);
  return query.forUpdate().executeTakeFirst();
}

export async function setPaymentStatus(
  tx: Tx,
  storeId: string,
  orderId: string,
  status: StripePaymentStatus,
) {
  await tx
    .updateTable('stripe_payments')
    .set({ status, lease_until: null, updated_at: new Date() })
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .execute();
}

/**
 * Claims up to `limit` payments whose hold has ended, for `leaseMs` (one committed statement, SKIP
 * LOCKED: workers claim different rows). A claim whose worker died is claimed again after its lease.
 */
export async function claimExpired(
  db: Executor,
  limit: number,
  leaseMs: number,
): Promise<StripePaymentRow[]> {
  const { rows } = await sql<StripePaymentRow>`
    UPDATE stripe_payments p SET lease_until = now() + make_interval(secs => ${leaseMs / 1000})
    FROM (
      SELECT store_id, order_id FROM stripe_payments
      WHERE status = 'awaiting' AND expires_at <= now() AND (lease_until IS NULL OR lease_until <= now())
      ORDER BY expires_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ) due
    WHERE p.store_id = due.store_id AND p.order_id = due.order_id
    RETURNING p.*`.execute(db);
  return rows;
}

/** Seconds until the next hold ends (or its lease does); null when no payment is awaited. */
export async function secondsUntilNextExpiry(db: Executor): Promise<number | null> {
  const { rows } = await sql<{ seconds: number | null }>`
    SELECT extract(epoch FROM min(greatest(expires_at, coalesce(lease_until, expires_at))) - now())::float8 AS seconds
    FROM stripe_payments WHERE status = 'awaiting'`.execute(db);
  const seconds = rows[0]?.seconds;
  return seconds === null || seconds === undefined ? null : Math.max(0, seconds);
}

/** Marks a Stripe event processed; false when it already was (a replay). In the effect's transaction. */
export async function markEventProcessed(tx: Tx, storeId: string, eventId: string, type: string) {
  const row = await tx
    .insertInto('stripe_events')
    .values({ store_id: storeId, event_id: eventId, type, received_at: new Date() })
    .onConflict((oc) => oc.columns(['store_id', 'event_id']).doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function isEventProcessed(db: Executor, storeId: string, eventId: string): Promise<boolean> {
  const row = await db
    .selectFrom('stripe_events')
    .select('event_id')
    .where('store_id', '=', storeId)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
  return row !== undefined;
}
