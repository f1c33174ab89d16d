import { currencyDecimals, toDecimalNumber } from '../../platform/money.js';
import { webUrlOf } from '../../platform/web-url.js';
import { type OrderDetails, orderForMerchant, refundForMerchant } from '../orders/index.js';
import { type StoreColors, type StoreRow, storeColors } from '../stores/index.js';
import type { NotificationKind } from './kinds.js';

/**
 * What a template renders with (contract §13): the merchant API's records, snake_case, plus the
 * links an e-mail needs. Amounts stay as the merchant API gives them (decimal numbers for orders and
 * refunds, decimal strings for catalogue prices); templates print them with `| money`, which formats
 * them in `currency` (the order's, else the store's). docs/notifications.md lists them per kind.
 */

export interface StoreVariables {
  name: string;
  slug: string;
  /** An absolute http(s) URL, or null. */
  logo: string | null;
  colors: StoreColors;
  /** The shop's home: its custom domain when set, else PUBLIC_URL/shop/{slug}. */
  shop_url: string;
  contact_email: string | null;
  currency: string;
}

export type OrderVariables = ReturnType<typeof orderForMerchant> & {
  /** The buyer's link to the order in the shop's account. */
  url: string;
  /** The order in the dashboard (PUBLIC_URL/admin/orders/{id}). */
  admin_url: string;
};

export interface CustomerVariables {
  id: string | null;
  email: string;
  first_name: string | null;
  last_name: string | null;
}

export type ShipmentVariables = OrderVariables['fulfillments'][number];

export type RefundVariables = ReturnType<typeof refundForMerchant> & {
  /** All that the order's succeeded refunds returned, this one included. */
  total_refunded: number;
  /** What the buyer still has paid for the order after the refunds. */
  remaining_paid: number;
};

export interface ProductVariables {
  id: string;
  name: string;
  slug: string;
  sku: string | null;
  /** Decimal string, as the catalogue's prices ("19.99"): the variant's when the message names one. */
  price: string;
  inventory: number;
  /** The product's page in the shop. */
  url: string;
  /** The product in the dashboard. */
  admin_url: string;
  variant: { id: string; title: string; sku: string | null; price: string; inventory: number } | null;
}

export interface NotificationVariables {
  /** The currency `| money` formats in: the order's, else the store's. */
  currency: string;
  store: StoreVariables;
  order?: OrderVariables;
  customer?: CustomerVariables;
  shipment?: ShipmentVariables;
  refund?: RefundVariables;
  product?: ProductVariables;
  /** low_stock: the threshold crossed and the quantity left. */
  threshold?: number;
  quantity?: number;
}

/** The variables each kind renders with (the template API's `variables`). */
export const KIND_VARIABLES: Readonly<Record<NotificationKind, readonly string[]>> = Object.freeze({
  order_confirmation: ['store', 'order', 'customer', 'currency'],
  shipping_confirmation: ['store', 'order', 'customer', 'shipment', 'currency'],
  order_cancelled: ['store', 'order', 'customer', 'currency'],
  refund_issued: ['store', 'order', 'customer', 'refund', 'currency'],
  back_in_stock: ['store', 'product', 'customer', 'currency'],
  new_order: ['store', 'order', 'customer', 'currency'],
  low_stock: ['store', 'product', 'threshold', 'quantity', 'currency'],
});

/** Where a store's links point: the shop on its custom domain when it has one, and the dashboard. */
export interface StoreLinks {
  shopUrl: string;
  adminUrl: string;
}

/**
 * The shop's home as the shop itself builds absolute URLs (shop.routes.tsx's shopAddress): the
 * custom domain on PUBLIC_URL's scheme, else PUBLIC_URL/shop/{slug}; the dashboard on PUBLIC_URL.
 */
export function storeLinksOf(store: Pick<StoreRow, 'slug' | 'custom_domain'>, publicUrl: string): StoreLinks {
  const platform = new URL(publicUrl);
  const shopUrl = store.custom_domain
    ? `${platform.protocol}//${store.custom_domain}`
    : `${platform.origin}/shop/${encodeURIComponent(store.slug)}`;
  return { shopUrl, adminUrl: `${platform.origin}/admin` };
}

export function storeVariables(store: StoreRow, links: StoreLinks): StoreVariables {
  return {
    name: store.name,
    slug: store.slug,
    logo: webUrlOf(store.logo) ?? null,
    colors: storeColors(store.colors),
    shop_url: links.shopUrl,
    contact_email: store.contact_email || null,
    currency: store.currency,
  };
}

export function orderVariables(details: OrderDetails, links: StoreLinks): OrderVariables {
  const order = orderForMerchant(details);
  return {
    ...order,
    url: `${links.shopUrl}/account/orders/${order.order_number}`,
    admin_url: `${links.adminUrl}/orders/${order.id}`,
  };
}

export function customerOfOrder(order: OrderVariables): CustomerVariables {
  const { id, email, first_name, last_name } = order.customer;
  return { id, email, first_name, last_name };
}

export function refundVariables(
  refund: Parameters<typeof refundForMerchant>[0],
  order: OrderDetails['order'],
): RefundVariables {
  const decimals = currencyDecimals(order.currency);
  return {
    ...refundForMerchant(refund, order.currency),
    total_refunded: toDecimalNumber(order.amount_refunded, decimals),
    remaining_paid: toDecimalNumber(Math.max(0, order.amount_paid - order.amount_refunded), decimals),
  };
}

/** The merchant API's product, as the catalogue's `get` answers it. */
export interface MerchantProduct {
  id: string;
  name: string;
  slug: string;
  sku: string | null;
  price: string;
  inventory: number;
  variants: { id: string; title: string; sku: string | null; price: string; inventory: number }[];
}

export function productVariables(
  product: MerchantProduct,
  variantId: string | null | undefined,
  links: StoreLinks,
): ProductVariables {
  const found = variantId ? product.variants.find((v) => v.id === variantId) : undefined;
  const variant = found
    ? { id: found.id, title: found.title, sku: found.sku, price: found.price, inventory: found.inventory }
    : null;
  return {
    id: product.id,
    name: product.name,
    slug: product.slug,
    sku: product.sku,
    price: variant?.price ?? product.price,
    inventory: variant?.inventory ?? product.inventory,
    url: `${links.shopUrl}/products/${encodeURIComponent(product.slug)}`,
    admin_url: `${links.adminUrl}/products/${product.id}`,
    variant,
  };
}
