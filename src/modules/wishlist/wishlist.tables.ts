import type { Timestamp } from '../../platform/db/schema.js';

/** A customer's saved product; one row per (store, customer, product). */
export interface WishlistItemsTable {
  store_id: string;
  customer_id: string;
  product_id: string;
  created_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    wishlist_items: WishlistItemsTable;
  }
}
