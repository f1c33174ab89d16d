import type { Executor } from '../../platform/db/database.js';

/** A slice of a store's active products for its sitemap: address and last change, oldest first. */
export function activeProductUrls(db: Executor, storeId: string, page: { offset: number; limit: number }) {
  return db
    .selectFrom('products')
    .select(['slug', 'updated_at'])
    .where('store_id', '=', storeId)
    .where('status', '=', 'active')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}
