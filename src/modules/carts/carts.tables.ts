import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';
import type { CheckoutInput } from '../checkout/index.js';

/** Stored as the checkout's input takes it (camelCase), so completing passes it on unchanged. */
export type CartAddress = NonNullable<CheckoutInput['shippingAddress']>;

export type CartStatus = 'open' | 'completed';

/** A shopper's cart: the id is a random token (the permission to use it), unique per store. */
export interface CartsTable {
  store_id: string;
  id: string;
  status: ColumnType<CartStatus, CartStatus | undefined, CartStatus>;
  customer_id: ColumnType<string | null, string | null | undefined, string | null>;
  email: ColumnType<string | null, string | null | undefined, string | null>;
  shipping_address: ColumnType<CartAddress | null, string | null | undefined, string | null>;
  coupon_code: ColumnType<string | null, string | null | undefined, string | null>;
  /** The shipping rate the shopper chose; null: the cheapest option for the address. */
  shipping_rate_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The order the cart became (status completed). */
  order_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  /** The last change; the cart expires 30 days after it. */
  updated_at: Timestamp;
  completed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** One line: a product (and variant) and a quantity; prices are never stored, always recomputed. */
export interface CartItemsTable {
  id: string;
  store_id: string;
  cart_id: string;
  product_id: string;
  variant_id: string | null;
  quantity: number;
  created_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    carts: CartsTable;
    cart_items: CartItemsTable;
  }
}
