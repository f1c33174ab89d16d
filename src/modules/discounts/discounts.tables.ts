import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';
import type { DiscountType } from './evaluate.js';

type Defaulted<T> = ColumnType<T, T | undefined, T>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface DiscountsTable {
  id: string;
  store_id: string;
  /** null: an automatic discount, applied without a code. */
  code: Defaulted<string | null>;
  title: string;
  type: DiscountType;
  /** percentage: hundredths of a percent (1250 = 12.5 %); fixed_amount: minor units; free_shipping: 0. */
  value: number;
  min_subtotal: Defaulted<number | null>;
  starts_at: Timestamp;
  ends_at: NullableTimestamp;
  usage_limit: Defaulted<number | null>;
  /** Only ever changed by the conditional increment of a redemption. */
  usage_count: ColumnType<number, number | undefined, number>;
  once_per_customer: Defaulted<boolean>;
  active: Defaulted<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DiscountProductsTable {
  store_id: string;
  discount_id: string;
  product_id: string;
}

export interface DiscountCategoriesTable {
  store_id: string;
  discount_id: string;
  category_id: string;
}

export interface DiscountRedemptionsTable {
  id: string;
  store_id: string;
  discount_id: string;
  customer_id: string | null;
  order_id: string;
  created_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    discounts: DiscountsTable;
    discount_products: DiscountProductsTable;
    discount_categories: DiscountCategoriesTable;
    discount_redemptions: DiscountRedemptionsTable;
  }
}
