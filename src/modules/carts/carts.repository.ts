import { type Selectable, sql } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';
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

/**
 * The cart, locked until the caller's transaction ends: first in the lock order of
 * docs/decisions.md (every cart write and completion takes it before anything else).
 */
export function lockCart(tx: Tx, storeId: string, id: string): Promise<CartRow | undefined> {
  return tx
    .selectFrom('carts')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .where('updated_at', '>', liveSince())
    .forUpdate()
    .executeTakeFirst() as Promise<CartRow | undefined>;
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

export async function updateCart(
  tx: Executor,
  storeId: string,
  id: string,
  changes: {
    customer_id?: string | null;
    email?: string | null;
    shipping_address?: string | null;
    coupon_code?: string | null;
    shipping_rate_id?: string | null;
  },
  now: Date,
) {
  await tx
    .updateTable('carts')
    .set({ ...changes, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .execute();
}

export async function closeCart(tx: Tx, storeId: string, id: string, orderId: string, now: Date) {
  await tx
    .updateTable('carts')
    .set({ status: 'completed', order_id: orderId, completed_at: now, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .execute();
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

export async function insertItems(tx: Executor, rows: CartItemRow[]) {
  if (rows.length > 0) await tx.insertInto('cart_items').values(rows).execute();
}

export async function setQuantity(tx: Tx, storeId: string, itemId: string, quantity: number) {
  await tx
    .updateTable('cart_items')
    .set({ quantity })
    .where('store_id', '=', storeId)
    .where('id', '=', itemId)
    .execute();
}

export async function deleteItem(tx: Tx, storeId: string, itemId: string) {
  await tx.deleteFrom('cart_items').where('store_id', '=', storeId).where('id', '=', itemId).execute();
}

/** Deletes up to `limit` carts unchanged since `before` (their lines go with them); SKIP LOCKED. */
export async function deleteExpiredCarts(db: Executor, before: Date, limit: number): Promise<number> {
  const result = await sql`DELETE FROM carts WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM carts WHERE updated_at <= ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED))`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
