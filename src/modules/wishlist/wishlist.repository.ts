import type { Executor } from '../../platform/db/database.js';

export function productIdsOf(db: Executor, storeId: string, customerId: string) {
  return db
    .selectFrom('wishlist_items')
    .select('product_id')
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .orderBy('created_at', 'desc')
    .execute();
}

export async function has(db: Executor, storeId: string, customerId: string, productId: string) {
  const row = await db
    .selectFrom('wishlist_items')
    .select('product_id')
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .where('product_id', '=', productId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Adds the product; true when it was not there yet. */
export async function add(db: Executor, storeId: string, customerId: string, productId: string) {
  const row = await db
    .insertInto('wishlist_items')
    .values({ store_id: storeId, customer_id: customerId, product_id: productId, created_at: new Date() })
    .onConflict((oc) => oc.columns(['customer_id', 'product_id']).doNothing())
    .returning('product_id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function remove(db: Executor, storeId: string, customerId: string, productId: string) {
  const result = await db
    .deleteFrom('wishlist_items')
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .where('product_id', '=', productId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
