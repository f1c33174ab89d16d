import { CompiledQuery, type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';
import { prepared } from '../../platform/db/prepared.js';
import { sqlText } from '../../platform/db/sql-text.js';
import { insertRows, WriteBatch, type Writer, write } from '../../platform/db/write-batch.js';
import { FIRST_ORDER_NUMBER } from './orders.bulk.repository.js';
import type {
  FulfillmentStatus,
  OrderFulfillmentsTable,
  OrderLineItemsTable,
  OrderStatus,
  OrdersTable,
  PaymentStatus,
} from './orders.tables.js';

export type OrderRow = Selectable<OrdersTable>;
export type LineItemRow = Selectable<OrderLineItemsTable>;
export type FulfillmentRow = Selectable<OrderFulfillmentsTable>;
/** The columns a list item shows: the JSON address, notes and dates of the full order are not read. */
const LIST_COLUMNS = [
  'id',
  'order_number',
  'status',
  'payment_status',
  'fulfillment_status',
  'currency',
  'subtotal',
  'discount_amount',
  'shipping_amount',
  'tax_amount',
  'total',
  'amount_paid',
  'amount_refunded',
  'customer_id',
  'customer_email',
  'customer_first_name',
  'customer_last_name',
  'created_at',
  'updated_at',
] as const;
export type OrderListRow = Pick<OrderRow, (typeof LIST_COLUMNS)[number]> & { item_count: number };

export interface OrderFilter {
  status?: OrderStatus;
  paymentStatus?: PaymentStatus;
  fulfillmentStatus?: FulfillmentStatus;
  customerId?: string;
  createdFrom?: Date;
  createdTo?: Date;
  /** An order number, or (part of) an e-mail. */
  q?: string;
}

/**
 * Takes the store's next order number. Call it last in the order's transaction: the counter row
 * stays locked until commit, and a rollback gives the number back, so numbers have no gaps.
 */
export async function takeOrderNumber(db: Executor, storeId: string): Promise<number> {
  const row = await sql<{ number: number }>`
    INSERT INTO order_counters (store_id, next_number) VALUES (${storeId}, ${FIRST_ORDER_NUMBER + 1})
    ON CONFLICT (store_id) DO UPDATE SET next_number = order_counters.next_number + 1
    RETURNING next_number - 1 AS number`.execute(db);
  return Number(row.rows[0]?.number);
}

/**
 * takeOrderNumber as the tail of the order's last stock move (inventory's StockTail): it reads the
 * CTE `moved`, so the counter is locked after the stock, as the lock order wants, and only when the
 * stock moved. Its row is `{ number }`.
 */
export function takeOrderNumberAfterStock(storeId: string) {
  return sqlText`
    INSERT INTO order_counters (store_id, next_number)
    SELECT ${storeId}::uuid, ${FIRST_ORDER_NUMBER + 1}::bigint FROM moved LIMIT 1
    ON CONFLICT (store_id) DO UPDATE SET next_number = order_counters.next_number + 1
    RETURNING next_number - 1 AS number`;
}

/** Orders of the store so far: numbers are gapless from 1001, so this is an exact count, read in O(1). */
export async function orderCount(db: Executor, storeId: string): Promise<number> {
  const row = await db
    .selectFrom('order_counters')
    .select('next_number')
    .where('store_id', '=', storeId)
    .executeTakeFirst();
  return row ? row.next_number - FIRST_ORDER_NUMBER : 0;
}

/** Whether the store has any order (placed or imported): its money is then labelled in its currency. */
export async function hasOrders(db: Executor, storeId: string): Promise<boolean> {
  const row = await db
    .selectFrom('orders')
    .select('id')
    .where('store_id', '=', storeId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export function insertOrder(to: Writer, order: Insertable<OrdersTable>) {
  return write(to, insertRows('orders', [order]));
}

/** In a batch, one write per line (a gated batch turns each into an `INSERT … SELECT`; lines have no order column but `position`). */
export async function insertLineItems(to: Writer, rows: Insertable<OrderLineItemsTable>[]) {
  if (to instanceof WriteBatch) for (const row of rows) to.add(insertRows('order_line_items', [row]));
  else if (rows.length) await write(to, insertRows('order_line_items', rows));
}

/** A row lock lasts until the transaction ends, so only a transaction may ask for one. */
export function findOrder(
  db: Tx,
  storeId: string,
  id: string,
  options: { lock: true },
): Promise<OrderRow | undefined>;
export function findOrder(
  db: Executor,
  storeId: string,
  id: string,
  options?: { lock?: false },
): Promise<OrderRow | undefined>;
export function findOrder(db: Executor, storeId: string, id: string, options: { lock?: boolean } = {}) {
  let query = db.selectFrom('orders').selectAll().where('store_id', '=', storeId).where('id', '=', id);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The store's order with the highest number (its latest), if it has any. */
export function findLatestOrder(db: Executor, storeId: string) {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('store_id', '=', storeId)
    .orderBy('order_number', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export function findOrderByNumber(db: Executor, storeId: string, orderNumber: number, customerId?: string) {
  let query = db
    .selectFrom('orders')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('order_number', '=', orderNumber);
  if (customerId !== undefined) query = query.where('customer_id', '=', customerId);
  return query.executeTakeFirst();
}

export function updateOrder(db: Executor, storeId: string, id: string, patch: Updateable<OrdersTable>) {
  return (
    db
      .updateTable('orders')
      // Always after the version it replaces, so that every write gives a new ETag (http/etag.ts),
      // two writes of one PATCH in the same millisecond included.
      .set({
        ...patch,
        updated_at: sql<Date>`greatest(${new Date()}::timestamptz, updated_at + interval '1 millisecond')`,
      })
      .where('store_id', '=', storeId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()
  );
}

export function lineItems(db: Executor, storeId: string, orderId: string) {
  return db
    .selectFrom('order_line_items')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .orderBy('position')
    .orderBy('id')
    .execute();
}

export function fulfillments(db: Executor, storeId: string, orderId: string) {
  return db
    .selectFrom('order_fulfillments')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .orderBy('created_at')
    .execute();
}

export async function insertFulfillment(db: Executor, row: Insertable<OrderFulfillmentsTable>) {
  await db.insertInto('order_fulfillments').values(row).execute();
}

export async function updateLineQuantity(db: Executor, storeId: string, id: string, quantity: number) {
  await db
    .updateTable('order_line_items')
    .set({ quantity })
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .execute();
}

/** Each line's tax as an edit recomputed it, in one statement. */
export async function setLineTaxes(db: Executor, storeId: string, taxes: { id: string; tax: number }[]) {
  if (taxes.length === 0) return;
  await sql`
    UPDATE order_line_items l SET tax_amount = t.tax
    FROM unnest(${taxes.map((t) => t.id)}::uuid[], ${taxes.map((t) => t.tax)}::bigint[]) AS t(id, tax)
    WHERE l.store_id = ${storeId} AND l.id = t.id`.execute(db);
}

export async function deleteLineItems(db: Executor, storeId: string, ids: string[]) {
  if (ids.length)
    await db.deleteFrom('order_line_items').where('store_id', '=', storeId).where('id', 'in', ids).execute();
}

function filtered(db: Executor, storeId: string, filter: OrderFilter) {
  let query = db.selectFrom('orders').where('orders.store_id', '=', storeId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.paymentStatus) query = query.where('payment_status', '=', filter.paymentStatus);
  if (filter.fulfillmentStatus) query = query.where('fulfillment_status', '=', filter.fulfillmentStatus);
  if (filter.customerId) query = query.where('customer_id', '=', filter.customerId);
  if (filter.createdFrom) query = query.where('orders.created_at', '>=', filter.createdFrom);
  if (filter.createdTo) query = query.where('orders.created_at', '<', filter.createdTo);
  const q = filter.q?.trim().replace(/^#/, '');
  if (q) {
    const number = /^\d{1,15}$/.test(q) ? Number(q) : undefined;
    query = query.where((eb) =>
      number === undefined
        ? eb(eb.fn('lower', ['customer_email']), '=', q.toLowerCase())
        : eb('order_number', '=', number),
    );
  }
  return query;
}

function isUnfiltered(filter: OrderFilter) {
  return Object.values(filter).every((v) => v === undefined || v === '');
}

const ITEM_COUNT =
  '(SELECT COALESCE(sum(li.quantity), 0)::int FROM order_line_items li WHERE li.order_id = orders.id)';
const withItemCount = sql<number>`${sql.raw(ITEM_COUNT)}`;

/**
 * The most rows a page statement reads with the text that caps them (the lists' largest limit, 100,
 * and the one more that tells whether another page follows). PostgreSQL plans a prepared statement
 * for its parameters' values (a custom plan) until a plan for any values (a generic plan) looks no
 * dearer. With `limit $3` alone, the generic plan is costed at a tenth of the store's orders: dearer
 * by far, so every execution was planned again (0.11–0.13 ms, as much as running it), and a generic
 * plan at that cost would also be JIT-compiled at each execution (16 ms). Under a constant limit the
 * generic plan costs what the custom one does, and is kept.
 */
const MOST_ROWS = 101;

/**
 * The unfiltered page, one statement written once (its shape never changes, so Kysely building and
 * compiling it on every request was work for nothing): the store's counter row, and beside it the
 * page's range of numbers below `highest`, at most `cap` rows (see MOST_ROWS). Prepared (its
 * columns are named: `o.*` is that list, so a column added by a migration changes nothing). $1 the
 * store (both tables), $2 the highest number's parameter, $3 the rows to read.
 */
const unfilteredPage = (highest: string, cap?: number) => {
  const rows =
    `select ${LIST_COLUMNS.map((c) => `"${c}"`).join(', ')}, ${ITEM_COUNT} as item_count from orders ` +
    `where orders.store_id = $1 and order_number <= ${highest} order by order_number desc`;
  const page = cap ? `select * from (${rows} limit ${cap}) as capped limit $3` : `${rows} limit $3`;
  return `select o.*, c.next_number from order_counters as c left join lateral (${page}) as o on true where c.store_id = $1`;
};
/** A page by number: $2 is the offset + 1 below the next number to be given. */
const PAGE_BY_NUMBER = unfilteredPage('c.next_number - $2', MOST_ROWS);
/** A page after a cursor: $2 is the highest order number of the page. */
const PAGE_AFTER = unfilteredPage('$2', MOST_ROWS);
/** The same for more rows than MOST_ROWS (no route asks for so many). */
const PAGE_BY_NUMBER_UNCAPPED = unfilteredPage('c.next_number - $2');
const PAGE_AFTER_UNCAPPED = unfilteredPage('$2');
type UnfilteredRow = { [K in keyof OrderListRow]: OrderListRow[K] | null } & { next_number: number };

/**
 * Newest first (highest order number). Unfiltered, a page number is a range of order numbers computed
 * from the store's counter (numbers are gapless), so page 50,000 costs what page 1 costs; filtered,
 * an index scan with OFFSET and an exact count. `after` (a cursor's last order number) starts the
 * page below it instead: one range of the (store_id, order_number) index whatever the depth. One row
 * more than the page is read to tell whether another page follows (`more`).
 */
export async function listOrders(
  db: Executor,
  storeId: string,
  filter: OrderFilter,
  page: { offset: number; limit: number; after?: number },
): Promise<{ rows: OrderListRow[]; total: number; more: boolean }> {
  const trim = (rows: OrderListRow[]) => ({
    rows: rows.slice(0, page.limit),
    more: rows.length > page.limit,
  });
  if (isUnfiltered(filter)) {
    const capped = page.limit + 1 <= MOST_ROWS;
    const { rows } = await db.executeQuery<UnfilteredRow>(
      page.after !== undefined
        ? prepared(
            CompiledQuery.raw(capped ? PAGE_AFTER : PAGE_AFTER_UNCAPPED, [
              storeId,
              page.after - 1,
              page.limit + 1,
            ]),
          )
        : prepared(
            CompiledQuery.raw(capped ? PAGE_BY_NUMBER : PAGE_BY_NUMBER_UNCAPPED, [
              storeId,
              1 + page.offset,
              page.limit + 1,
            ]),
          ),
    );
    const total = rows[0] ? rows[0].next_number - FIRST_ORDER_NUMBER : 0;
    // No order at all: the counter's row alone, its order columns null. The rows keep `next_number`
    // beside the list's columns; the serialisers read only theirs.
    const orders = (rows[0]?.id === null ? [] : rows) as OrderListRow[];
    return { ...trim(orders), total };
  }
  let rowsQuery = filtered(db, storeId, filter).select(LIST_COLUMNS).select(withItemCount.as('item_count'));
  rowsQuery =
    page.after !== undefined
      ? rowsQuery.where('order_number', '<', page.after)
      : rowsQuery.offset(page.offset);
  const [rows, count] = await Promise.all([
    rowsQuery
      .orderBy('order_number', 'desc')
      .limit(page.limit + 1)
      .execute(),
    filtered(db, storeId, filter)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  return { ...trim(rows), total: Number(count.total) };
}

/** Orders count and money spent (paid minus refunded, on orders not cancelled) per customer. */
export async function customerTotals(db: Executor, storeId: string, customerIds: string[]) {
  const totals = new Map<string, { orders_count: number; total_spent: number }>();
  if (customerIds.length === 0) return totals;
  const rows = await db
    .selectFrom('orders')
    .select((eb) => [
      'customer_id',
      eb.fn.countAll<number>().as('orders_count'),
      sql<number>`COALESCE(sum(amount_paid - amount_refunded) FILTER (WHERE status <> 'cancelled'), 0)`.as(
        'total_spent',
      ),
    ])
    .where('store_id', '=', storeId)
    .where('customer_id', 'in', customerIds)
    .groupBy('customer_id')
    .execute();
  for (const row of rows) {
    if (row.customer_id)
      totals.set(row.customer_id, {
        orders_count: Number(row.orders_count),
        total_spent: Number(row.total_spent),
      });
  }
  return totals;
}

/*
 * Bulk history (the CLI seed): rows written straight into the tables, thousands per statement,
 * bypassing placeOrder. The caller owns the invariants placeOrder keeps one order at a time: it
 * holds the counter (lockOrderCounterForBulk) for the whole transaction, numbers the orders gaplessly
 * from the counter, advances it once, and updates the buyers' stats once at the end.
 */

export * from './orders.bulk.repository.js';
