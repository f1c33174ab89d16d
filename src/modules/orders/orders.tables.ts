import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

export type OrderStatus = 'pending' | 'processing' | 'on_hold' | 'completed' | 'cancelled';
export type PaymentStatus =
  | 'unpaid'
  | 'pending'
  | 'partially_paid'
  | 'paid'
  | 'partially_refunded'
  | 'refunded'
  | 'refund_due';
export type FulfillmentStatus = 'unfulfilled' | 'fulfilled';

/** Stored snake_case; the storefront and customer views convert it to camelCase. */
export interface Address {
  first_name?: string | null;
  last_name?: string | null;
  line1: string;
  line2?: string | null;
  city: string;
  region?: string | null;
  postal_code: string;
  country: string;
  phone?: string | null;
}

/**
 * One tax line of an order as charged: `rate` a percentage string ("19", "7.25"); `country` and
 * `region` (ISO 3166-2, or null for the whole country) the place whose rate it is, kept for
 * analytics' tax_by_region and for edits, which tax new lines at these rates.
 */
export interface StoredTaxLine {
  name: string;
  rate: string;
  amount: number;
  country: string | null;
  region: string | null;
  shipping_taxable?: boolean;
}

type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

export interface OrdersTable {
  id: string;
  store_id: string;
  order_number: number;
  status: OrderStatus;
  status_before_hold: Nullable<OrderStatus>;
  payment_status: PaymentStatus;
  fulfillment_status: FulfillmentStatus;
  currency: string;
  subtotal: number;
  discount_amount: number;
  shipping_amount: number;
  tax_amount: number;
  total: number;
  amount_paid: number;
  /** Succeeded refunds only (a pending refund is reserved by its row). */
  amount_refunded: ColumnType<number, number | undefined, number>;
  coupon_code: Nullable<string>;
  discount_id: Nullable<string>;
  payment_method: Nullable<string>;
  customer_id: Nullable<string>;
  customer_email: string;
  customer_first_name: Nullable<string>;
  customer_last_name: Nullable<string>;
  shipping_address: ColumnType<Address | null, string | null | undefined, string | null>;
  notes: Nullable<string>;
  /** The shipping method as chosen at checkout (§12): the rate's id and its name then. */
  shipping_rate_id: Nullable<string>;
  shipping_method_name: Nullable<string>;
  tax_lines: ColumnType<StoredTaxLine[], string | undefined, string>;
  taxes_included: ColumnType<boolean, boolean | undefined, boolean>;
  cancel_reason: Nullable<string>;
  cancelled_at: Nullable<Date>;
  paid_at: Nullable<Date>;
  fulfilled_at: Nullable<Date>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OrderLineItemsTable {
  id: string;
  store_id: string;
  order_id: string;
  product_id: string | null;
  variant_id: string | null;
  name: string;
  variant_title: string | null;
  sku: string | null;
  quantity: number;
  price: number;
  position: number;
  /** This line's tax, rounded (§12); the order's tax_amount is the sum of its lines' and shipping's. */
  tax_amount: ColumnType<number, number | undefined, number>;
}

export interface OrderFulfillmentsTable {
  id: string;
  store_id: string;
  order_id: string;
  carrier: string | null;
  tracking_number: string | null;
  tracking_url: string | null;
  created_at: Timestamp;
}

export type RefundStatus = 'pending' | 'succeeded' | 'failed';

/** Units of one line an order's refund returns to stock. */
export interface RestockedLine {
  line_item_id: string;
  quantity: number;
}

export interface RefundsTable {
  id: string;
  store_id: string;
  order_id: string;
  amount: number;
  reason: string | null;
  status: RefundStatus;
  /** manual, test_card, or the payment method of the provider's gateway (stripe). */
  provider: string;
  provider_refund_id: string | null;
  failure_reason: string | null;
  restocked: ColumnType<RestockedLine[], string | undefined, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OrderCountersTable {
  store_id: string;
  next_number: ColumnType<number, number | undefined, number>;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    orders: OrdersTable;
    order_line_items: OrderLineItemsTable;
    order_fulfillments: OrderFulfillmentsTable;
    order_counters: OrderCountersTable;
    refunds: RefundsTable;
  }
}

export interface OrderHistoryTable {
  id: string;
  store_id: string;
  order_id: string;
  type: string;
  actor_type: string;
  actor_id: string | null;
  changes: ColumnType<Record<string, { before: unknown; after: unknown }>, string, string>;
  data: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
  seq: Generated<string>;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    order_history: OrderHistoryTable;
  }
}
