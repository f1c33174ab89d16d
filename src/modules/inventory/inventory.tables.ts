import type { Timestamp } from '../../platform/db/schema.js';

/** Why stock moved: a merchant adjustment, or an order-side effect. */
export type AdjustmentSource =
  | 'api'
  | 'admin'
  | 'order'
  | 'edit'
  | 'cancel'
  | 'restock'
  | 'refund'
  | 'product_update';

export interface InventoryAdjustmentsTable {
  id: string;
  store_id: string;
  product_id: string;
  variant_id: string | null;
  previous: number;
  adjustment: number;
  inventory: number;
  reason: string | null;
  source: AdjustmentSource;
  created_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    inventory_adjustments: InventoryAdjustmentsTable;
  }
}
