/** The API shapes the dashboard uses (snake_case, as /api/v1 and /api/admin answer). */

export interface StoreRef {
  id: string;
  slug: string;
  name: string;
}

export interface Session {
  user: { id: string; email: string };
  store: StoreRef;
  stores: StoreRef[];
}

export interface StoreSettings extends StoreRef {
  currency: string;
  timezone: string;
  logo: string | null;
  colors: Record<string, string>;
  low_stock_threshold: number;
  shipping_flat_rate: string;
  free_shipping_threshold: string | null;
  tax_rate: string;
  app_config: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface CreatedApiKey {
  id: string;
  key: string;
  name: string;
  scopes: string[];
}

export type ProductStatus = 'active' | 'draft' | 'archived';

export interface ProductImage {
  id: string;
  url: string;
  alt: string | null;
  is_primary: boolean;
  position: number;
}

export interface Variant {
  id: string;
  title: string;
  sku: string | null;
  price: string;
  compare_price: string | null;
  inventory: number;
  options: Record<string, string>;
}

export interface Product {
  id: string;
  name: string;
  slug: string;
  description: string;
  status: ProductStatus;
  price: string;
  compare_price: string | null;
  sku: string | null;
  inventory: number;
  track_inventory: boolean;
  low_stock_threshold: number | null;
  category_ids: string[];
  images: ProductImage[];
  media: { id: string; url: string; media_type: 'video' }[];
  options: { name: string; values: string[] }[];
  variants: Variant[];
  created_at: string;
  updated_at: string;
}

export type StockStatus = 'in_stock' | 'low_stock' | 'out_of_stock';

export interface InventoryLevel {
  id: string;
  type: 'product' | 'variant';
  product_id: string;
  variant_id: string | null;
  inventory: number;
  track_inventory: boolean;
  low_stock_threshold: number;
  stock_status: StockStatus;
  variants?: {
    id: string;
    title: string;
    sku: string | null;
    inventory: number;
    stock_status: StockStatus;
  }[];
}

export interface InventoryAdjustment {
  id: string;
  product_id: string;
  variant_id: string | null;
  previous: number;
  adjustment: number;
  inventory: number;
  reason: string | null;
  source: string;
  created_at: string;
}

export interface Category {
  id: string;
  name: string;
  slug: string;
  description: string;
  parent_id: string | null;
  position: number;
  product_count: number;
  created_at: string;
}

export type DiscountType = 'percentage' | 'fixed_amount' | 'free_shipping';

export interface Discount {
  id: string;
  code: string | null;
  title: string;
  type: DiscountType;
  value: string;
  min_subtotal: string | null;
  starts_at: string;
  ends_at: string | null;
  usage_limit: number | null;
  usage_count: number;
  once_per_customer: boolean;
  active: boolean;
  product_ids: string[];
  category_ids: string[];
  created_at: string;
}

export interface Address {
  id: string;
  line1: string;
  line2: string | null;
  city: string;
  region: string | null;
  postal_code: string;
  country: string;
  phone: string | null;
  is_default: boolean;
}

export interface Customer {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  orders_count: number;
  total_spent: number;
  addresses: Address[];
  created_at: string;
  updated_at: string;
}

export type OrderStatus = 'pending' | 'processing' | 'on_hold' | 'completed' | 'cancelled';
export type PaymentStatus = 'unpaid' | 'partially_paid' | 'paid' | 'refund_due';
export type FulfillmentStatus = 'unfulfilled' | 'fulfilled';

export interface OrderCustomer {
  id: string | null;
  email: string;
  first_name: string | null;
  last_name: string | null;
}

export interface OrderSummary {
  id: string;
  order_number: string;
  status: OrderStatus;
  payment_status: PaymentStatus;
  fulfillment_status: FulfillmentStatus;
  currency: string;
  subtotal: number;
  discount_amount: number;
  shipping_amount: number;
  tax_amount: number;
  total: number;
  amount_paid: number;
  balance_due: number;
  item_count: number;
  customer: OrderCustomer;
  created_at: string;
  updated_at: string;
}

export interface ShippingAddress {
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

export interface LineItem {
  id: string;
  product_id: string | null;
  variant_id: string | null;
  name: string;
  variant_title: string | null;
  sku: string | null;
  quantity: number;
  price: number;
  total: number;
}

export interface Fulfillment {
  id: string;
  carrier: string | null;
  tracking_number: string | null;
  tracking_url: string | null;
  created_at: string;
}

export interface Order extends Omit<OrderSummary, 'item_count'> {
  coupon_code: string | null;
  payment_method: string | null;
  shipping_address: ShippingAddress | null;
  notes: string | null;
  line_items: LineItem[];
  fulfillments: Fulfillment[];
  cancel_reason: string | null;
  cancelled_at: string | null;
  paid_at: string | null;
  fulfilled_at: string | null;
}

export interface EditItemsBody {
  update_quantity?: { item_id: string; new_quantity: number }[];
  add?: {
    product_id: string;
    variant_id?: string | null;
    name: string;
    variant_title?: string | null;
    quantity: number;
    price: string;
  }[];
  remove?: string[];
}

export interface EditItemsResult {
  id: string;
  order_number: number;
  old_total: number;
  new_total: number;
  price_difference: number;
  subtotal: number;
  discount_amount: number;
  total: number;
  line_items: { id: string; name: string; quantity: number; price: number; total: number }[];
}

export const WEBHOOK_EVENTS = [
  'order.created',
  'order.paid',
  'order.updated',
  'order.cancelled',
  'product.low_stock',
  'product.out_of_stock',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  active: boolean;
  created_at: string;
  updated_at: string;
  last_success_at: string | null;
  consecutive_failures: number;
  disabled_reason: string | null;
}

export interface DeliveryAttempt {
  id: string;
  delivery_id: string;
  event_type: string;
  attempt: number;
  status: 'succeeded' | 'failed' | 'pending';
  status_code: number | null;
  request_body: string;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  created_at: string;
  next_retry_at: string | null;
}

export interface AnalyticsTotals {
  revenue: number;
  orders: number;
  average_order_value: number;
  items_sold: number;
  discounts: number;
  new_customers: number;
  returning_customers: number;
}

export interface Analytics {
  currency: string;
  from: string;
  to: string;
  totals: AnalyticsTotals;
  previous_period: AnalyticsTotals;
  timeseries: { period_start: string; revenue: number; orders: number }[];
  top_products: { product_id: string | null; name: string; quantity: number; revenue: number }[];
  status_breakdown: Record<string, number>;
}

/** The scopes an API key may carry (as the API's SCOPES list). */
export const SCOPES = [
  'orders:read',
  'orders:write',
  'products:read',
  'products:write',
  'inventory:read',
  'inventory:write',
  'customers:read',
  'discounts:read',
  'discounts:write',
  'analytics:read',
  'webhooks:read',
  'webhooks:write',
  'mobile:write',
  'storefront:read',
  'customer:read',
  'customer:write',
] as const;
