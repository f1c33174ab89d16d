import { type Insertable, type Selectable, sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { type ColumnTypes, insertByColumns } from './orders.repository.js';
import type { RefundStatus, RefundsTable, RestockedLine } from './orders.tables.js';

export type RefundRow = Selectable<RefundsTable>;

/** What is committed against an order: refunds succeeded or still pending (failed ones release theirs). */
export interface RefundCommitments {
  /** Minor units. */
  amount: number;
  /** Units per line item. */
  restocked: Map<string, number>;
}

export async function insertRefund(
  db: Executor,
  row: Omit<Insertable<RefundsTable>, 'restocked'> & { restocked: RestockedLine[] },
): Promise<RefundRow> {
  return db
    .insertInto('refunds')
    .values({ ...row, restocked: JSON.stringify(row.restocked) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findRefund(db: Executor, storeId: string, id: string) {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A page of the order's refunds, newest first, and how many it has. */
export async function listRefunds(
  db: Executor,
  storeId: string,
  orderId: string,
  page: { offset: number; limit: number },
) {
  const scoped = db.selectFrom('refunds').where('store_id', '=', storeId).where('order_id', '=', orderId);
  const [rows, count] = await Promise.all([
    scoped
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    scoped.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/**
 * Amount and units committed by the order's succeeded and pending refunds. Read under the order's
 * lock, so a concurrent refund of the same order waits and then sees this one.
 */
export async function commitments(
  db: Executor,
  storeId: string,
  orderId: string,
): Promise<RefundCommitments> {
  const rows = await db
    .selectFrom('refunds')
    .select(['amount', 'restocked'])
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .where('status', 'in', ['pending', 'succeeded'])
    .execute();
  const restocked = new Map<string, number>();
  let amount = 0;
  for (const row of rows) {
    amount += Number(row.amount);
    for (const line of row.restocked)
      restocked.set(line.line_item_id, (restocked.get(line.line_item_id) ?? 0) + line.quantity);
  }
  return { amount, restocked };
}

/** Refunds of the order that a provider's report names, by our id or by the provider's. */
export function findProviderMatches(
  db: Executor,
  storeId: string,
  orderId: string,
  ids: { refundIds: string[]; providerRefundIds: string[] },
) {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .where((eb) =>
      eb.or([
        ...(ids.refundIds.length ? [eb('id', 'in', ids.refundIds)] : []),
        ...(ids.providerRefundIds.length ? [eb('provider_refund_id', 'in', ids.providerRefundIds)] : []),
        eb.val(false),
      ]),
    )
    .execute();
}

/** Settles a pending refund; only a refund still in `from` changes (undefined otherwise). */
export function settleRefund(
  db: Executor,
  storeId: string,
  id: string,
  from: RefundStatus[],
  patch: { status: RefundStatus; provider_refund_id?: string | null; failure_reason?: string | null },
) {
  return db
    .updateTable('refunds')
    .set({ ...patch, updated_at: new Date() })
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Succeeded refunds made on the local days `from`..`to` (inclusive, in `timezone`) on orders that are
 * not cancelled (a cancelled order's payment is already out of revenue), in minor units.
 */
export async function refundedBetween(
  db: Executor,
  storeId: string,
  days: { from: string; to: string },
  timezone: string,
): Promise<number> {
  const row = await sql<{ total: string | number | null }>`
    SELECT COALESCE(sum(r.amount), 0) AS total
    FROM refunds r
    JOIN orders o ON o.store_id = r.store_id AND o.id = r.order_id
    WHERE r.store_id = ${storeId} AND r.status = 'succeeded'
      AND r.created_at >= (${days.from}::date)::timestamp AT TIME ZONE ${timezone}
      AND r.created_at < (${days.to}::date + 1)::timestamp AT TIME ZONE ${timezone}
      AND o.status <> 'cancelled'`.execute(db);
  return Number(row.rows[0]?.total ?? 0);
}

const REFUND_COLUMNS: ColumnTypes<Insertable<RefundsTable>> = [
  ['id', 'uuid[]'],
  ['store_id', 'uuid[]'],
  ['order_id', 'uuid[]'],
  ['amount', 'bigint[]'],
  ['reason', 'text[]'],
  ['status', 'text[]'],
  ['provider', 'text[]'],
  ['provider_refund_id', 'text[]'],
  ['failure_reason', 'text[]'],
  ['restocked', 'jsonb[]'],
  ['created_at', 'timestamptz[]'],
  ['updated_at', 'timestamptz[]'],
];

/** Many refunds in one statement (bulk history; `restocked` as JSON text). */
export function insertRefundsBulk(db: Executor, rows: readonly Insertable<RefundsTable>[]) {
  return insertByColumns(db, 'refunds', REFUND_COLUMNS, rows);
}
