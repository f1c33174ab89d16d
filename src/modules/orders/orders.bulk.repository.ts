/** Bulk writes of orders, lines and fulfilments by columns, for the importer (`seed --orders`). */
import { type Insertable, sql } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';
import type { OrderFulfillmentsTable, OrderLineItemsTable, OrdersTable } from './orders.tables.js';

/** A store's first order number: new stores count from 1001, as merchants expect. */
export const FIRST_ORDER_NUMBER = 1001;

export type ColumnTypes<T> = ReadonlyArray<readonly [column: keyof T & string, pgArrayType: string]>;

/**
 * `INSERT INTO table (…) SELECT * FROM unnest($1::type[], …)`: one array parameter per column, so a
 * statement of any number of rows has a fixed, small number of parameters and one short plan.
 */
export async function insertByColumns<T extends object>(
  db: Executor,
  table: string,
  columns: ColumnTypes<T>,
  rows: readonly T[],
) {
  if (rows.length === 0) return;
  const arrays = columns.map(([column, type]) => {
    const values = rows.map((row) => {
      const value = (row as Record<string, unknown>)[column];
      // ISO text: exact to the millisecond, whatever the client's time zone.
      return value instanceof Date ? value.toISOString() : (value ?? null);
    });
    return sql`${values}::${sql.raw(type)}`;
  });
  await sql`INSERT INTO ${sql.table(table)} (${sql.join(columns.map(([c]) => sql.ref(c)))})
    SELECT * FROM unnest(${sql.join(arrays)})`.execute(db);
}

const ORDER_COLUMNS: ColumnTypes<Insertable<OrdersTable>> = [
  ['id', 'uuid[]'],
  ['store_id', 'uuid[]'],
  ['order_number', 'bigint[]'],
  ['status', 'text[]'],
  ['status_before_hold', 'text[]'],
  ['payment_status', 'text[]'],
  ['fulfillment_status', 'text[]'],
  ['currency', 'text[]'],
  ['subtotal', 'bigint[]'],
  ['discount_amount', 'bigint[]'],
  ['shipping_amount', 'bigint[]'],
  ['tax_amount', 'bigint[]'],
  ['total', 'bigint[]'],
  ['amount_paid', 'bigint[]'],
  ['amount_refunded', 'bigint[]'],
  ['coupon_code', 'text[]'],
  ['discount_id', 'uuid[]'],
  ['payment_method', 'text[]'],
  ['customer_id', 'uuid[]'],
  ['customer_email', 'text[]'],
  ['customer_first_name', 'text[]'],
  ['customer_last_name', 'text[]'],
  ['shipping_address', 'jsonb[]'],
  ['notes', 'text[]'],
  ['cancel_reason', 'text[]'],
  ['cancelled_at', 'timestamptz[]'],
  ['paid_at', 'timestamptz[]'],
  ['fulfilled_at', 'timestamptz[]'],
  ['created_at', 'timestamptz[]'],
  ['updated_at', 'timestamptz[]'],
];

const LINE_ITEM_COLUMNS: ColumnTypes<Insertable<OrderLineItemsTable>> = [
  ['id', 'uuid[]'],
  ['store_id', 'uuid[]'],
  ['order_id', 'uuid[]'],
  ['product_id', 'uuid[]'],
  ['variant_id', 'uuid[]'],
  ['name', 'text[]'],
  ['variant_title', 'text[]'],
  ['sku', 'text[]'],
  ['quantity', 'integer[]'],
  ['price', 'bigint[]'],
  ['position', 'integer[]'],
];

const FULFILLMENT_COLUMNS: ColumnTypes<Insertable<OrderFulfillmentsTable>> = [
  ['id', 'uuid[]'],
  ['store_id', 'uuid[]'],
  ['order_id', 'uuid[]'],
  ['carrier', 'text[]'],
  ['tracking_number', 'text[]'],
  ['tracking_url', 'text[]'],
  ['created_at', 'timestamptz[]'],
];

/** Many orders in one statement (`shipping_address` as JSON text, like insertOrder). */
export function insertOrdersBulk(db: Executor, rows: readonly Insertable<OrdersTable>[]) {
  return insertByColumns(db, 'orders', ORDER_COLUMNS, rows);
}

export function insertLineItemsBulk(db: Executor, rows: readonly Insertable<OrderLineItemsTable>[]) {
  return insertByColumns(db, 'order_line_items', LINE_ITEM_COLUMNS, rows);
}

export function insertFulfillmentsBulk(db: Executor, rows: readonly Insertable<OrderFulfillmentsTable>[]) {
  return insertByColumns(db, 'order_fulfillments', FULFILLMENT_COLUMNS, rows);
}

/**
 * Locks the store's order counter until the caller's transaction ends (creating it at 1001 when the
 * store has no order yet) and returns the next number and the creation time of the newest order, so
 * bulk history can continue both. Concurrent orders of that store wait for the transaction.
 */
export async function lockOrderCounterForBulk(
  db: Tx,
  storeId: string,
): Promise<{ nextNumber: number; newestCreatedAt: Date | null }> {
  await sql`INSERT INTO order_counters (store_id, next_number) VALUES (${storeId}, ${FIRST_ORDER_NUMBER})
    ON CONFLICT (store_id) DO NOTHING`.execute(db);
  const counter = await sql<{ next_number: number }>`
    SELECT next_number FROM order_counters WHERE store_id = ${storeId} FOR UPDATE`.execute(db);
  const nextNumber = Number(counter.rows[0]?.next_number);
  const newest = await db
    .selectFrom('orders')
    .select('created_at')
    .where('store_id', '=', storeId)
    .where('order_number', '=', nextNumber - 1)
    .executeTakeFirst();
  return { nextNumber, newestCreatedAt: newest?.created_at ?? null };
}

/** Moves the (locked) counter past `count` orders inserted in bulk. */
export async function advanceOrderCounter(db: Executor, storeId: string, count: number) {
  await db
    .updateTable('order_counters')
    .set((eb) => ({ next_number: eb('next_number', '+', count) }))
    .where('store_id', '=', storeId)
    .execute();
}

/**
 * One aggregate UPDATE after a bulk insert: each buyer of the orders numbered `from`..`to` gains
 * their count and their paid amounts on those not cancelled (the rule of customerTotals).
 */
export async function addCustomerStatsOfOrders(db: Executor, storeId: string, from: number, to: number) {
  await sql`
    UPDATE customers c
    SET orders_count = c.orders_count + s.orders, total_spent = c.total_spent + s.spent
    FROM (
      SELECT customer_id, count(*)::int AS orders,
        COALESCE(sum(amount_paid - amount_refunded) FILTER (WHERE status <> 'cancelled'), 0) AS spent
      FROM orders
      WHERE store_id = ${storeId} AND order_number BETWEEN ${from} AND ${to} AND customer_id IS NOT NULL
      GROUP BY customer_id
    ) s
    WHERE c.store_id = ${storeId} AND c.id = s.customer_id`.execute(db);
}

/** Fresh planner statistics after a bulk load (inside its transaction, they count its rows). */
export async function analyzeOrderTables(tx: Tx) {
  await sql`ANALYZE orders, order_line_items, order_fulfillments, refunds`.execute(tx);
}
