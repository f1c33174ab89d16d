import { type CompiledQuery, type Selectable, sql } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';
import { prepared } from '../../platform/db/prepared.js';
import { jsonDate } from '../../platform/db/read-together.js';
import { compiled, rawSql, type SqlText, sqlText } from '../../platform/db/sql-text.js';
import { isUuid } from '../../platform/ids.js';
import type { CartItemsTable, CartsTable } from './carts.tables.js';

export type CartRow = Selectable<CartsTable>;
export type CartItemRow = Selectable<CartItemsTable>;

/** Carts live this long after their last change (contract §9). */
export const CART_LIFETIME_MS = 30 * 86_400_000;
const liveSince = () => new Date(Date.now() - CART_LIFETIME_MS);

export async function insertCart(
  tx: Executor,
  row: { store_id: string; id: string; customer_id: string | null; email: string | null; now: Date },
) {
  await tx
    .insertInto('carts')
    .values({
      store_id: row.store_id,
      id: row.id,
      customer_id: row.customer_id,
      email: row.email,
      created_at: row.now,
      updated_at: row.now,
    })
    .execute();
}

/** A cart that has not expired, or undefined. */
export function findCart(db: Executor, storeId: string, id: string): Promise<CartRow | undefined> {
  return db
    .selectFrom('carts')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .where('updated_at', '>', liveSince())
    .executeTakeFirst() as Promise<CartRow | undefined>;
}

/** A cart's columns, named (a named statement's result columns must not follow the table's). */
const CART_COLUMNS = rawSql(
  'store_id, id, status, customer_id, email, shipping_address, coupon_code, shipping_rate_id, order_id, created_at, updated_at, completed_at',
);

/**
 * The cart, locked until the caller's transaction ends: first in the lock order of
 * docs/decisions.md (every cart write and completion takes it before anything else). Named: every
 * change and completion of a cart starts with it.
 */
export async function lockCart(tx: Tx, storeId: string, id: string): Promise<CartRow | undefined> {
  const query = compiled<CartRow>(sqlText`SELECT ${CART_COLUMNS} FROM carts
    WHERE store_id = ${storeId} AND id = ${id} AND updated_at > ${liveSince()} FOR UPDATE`);
  return (await tx.executeQuery(prepared(query))).rows[0];
}

/** The customer's most recently changed open cart that has not expired. */
export function latestOpenCartOf(db: Executor, storeId: string, customerId: string) {
  return db
    .selectFrom('carts')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .where('status', '=', 'open')
    .where('updated_at', '>', liveSince())
    .orderBy('updated_at', 'desc')
    .limit(1)
    .executeTakeFirst() as Promise<CartRow | undefined>;
}

export async function closeCart(tx: Tx, storeId: string, id: string, orderId: string, now: Date) {
  await tx.executeQuery(
    prepared(
      compiled(sqlText`UPDATE carts SET status = 'completed', order_id = ${orderId}, completed_at = ${now},
        updated_at = ${now} WHERE store_id = ${storeId} AND id = ${id}`),
    ),
  );
}

/** Opens a cart again whose order was cancelled before it could be paid (the provider was unreachable). */
export async function reopenCart(tx: Executor, storeId: string, id: string, orderId: string, now: Date) {
  await tx
    .updateTable('carts')
    .set({ status: 'open', order_id: null, completed_at: null, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .where('order_id', '=', orderId)
    .execute();
}

export function itemsOf(db: Executor, storeId: string, cartId: string): Promise<CartItemRow[]> {
  return db
    .selectFrom('cart_items')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('cart_id', '=', cartId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** itemsOf as one query of a readTogether (in this order: ITEMS_ORDER); its rows go to `itemsFromJson`. */
export function itemsQuery(storeId: string, cartId: string): CompiledQuery<CartItemRow> {
  return compiled(sqlText`SELECT * FROM cart_items WHERE store_id = ${storeId} AND cart_id = ${cartId}`);
}
export const ITEMS_ORDER = 'created_at, id';

/** Lines that came back as JSON (readTogether), with their timestamps as Dates again. */
export function itemsFromJson(rows: unknown[]): CartItemRow[] {
  return (rows as CartItemRow[]).map((row) => ({ ...row, created_at: jsonDate(row.created_at) }));
}

/**
 * The products of a cart's lines, and `more` (ids that are not UUIDs are left out: they name no
 * product), as SQL yielding a `uuid[]`: the catalogue's lookups read them in the statement that
 * reads the lines.
 */
export function productIdsOfCart(storeId: string, cartId: string, more: string[]): SqlText {
  return sqlText`(ARRAY(SELECT product_id FROM cart_items WHERE store_id = ${storeId} AND cart_id = ${cartId})
    || ${more.filter(isUuid)}::uuid[])`;
}

/** What a change does to one line of the cart (written with the cart's row: `writeCartChange`). */
export type LineWrite =
  | { insert: CartItemRow }
  | { setQuantity: { id: string; quantity: number } }
  | { delete: { id: string } };

function lineWriteSql(storeId: string, line: LineWrite): SqlText {
  if ('insert' in line) {
    const r = line.insert;
    return sqlText`INSERT INTO cart_items (id, store_id, cart_id, product_id, variant_id, quantity, created_at)
      VALUES (${r.id}, ${r.store_id}, ${r.cart_id}, ${r.product_id}, ${r.variant_id}, ${r.quantity}, ${r.created_at})`;
  }
  if ('setQuantity' in line)
    return sqlText`UPDATE cart_items SET quantity = ${line.setQuantity.quantity}
      WHERE store_id = ${storeId} AND id = ${line.setQuantity.id}`;
  return sqlText`DELETE FROM cart_items WHERE store_id = ${storeId} AND id = ${line.delete.id}`;
}

/**
 * A change of an open cart in one statement: its line (`line`, if any) and the cart's own row, whose
 * `updated_at` moves to `now` (the start of its 30 days). Named: its texts are a handful.
 */
export async function writeCartChange(
  tx: Tx,
  storeId: string,
  id: string,
  line: LineWrite | undefined,
  cart: {
    customer_id: string | null;
    email: string | null;
    shipping_address: string | null;
    coupon_code: string | null;
    shipping_rate_id: string | null;
  },
  now: Date,
) {
  const update = sqlText`UPDATE carts SET customer_id = ${cart.customer_id}, email = ${cart.email},
      shipping_address = ${cart.shipping_address}::jsonb, coupon_code = ${cart.coupon_code},
      shipping_rate_id = ${cart.shipping_rate_id}, updated_at = ${now}
    WHERE store_id = ${storeId} AND id = ${id}`;
  const statement = line ? sqlText`WITH line AS (${lineWriteSql(storeId, line)}) ${update}` : update;
  await tx.executeQuery(prepared(compiled(statement)));
}

export async function insertItems(tx: Executor, rows: CartItemRow[]) {
  if (rows.length > 0) await tx.insertInto('cart_items').values(rows).execute();
}

/** Deletes up to `limit` carts unchanged since `before` (their lines go with them); SKIP LOCKED. */
export async function deleteExpiredCarts(db: Executor, before: Date, limit: number): Promise<number> {
  const result = await sql`DELETE FROM carts WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM carts WHERE updated_at <= ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED))`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
