import { currencyDecimals, toDecimalNumber } from '../../platform/money.js';
import type { FulfillmentRow, LineItemRow, OrderListRow, OrderRow } from './orders.repository.js';
import type { Address } from './orders.tables.js';
import { lineTotal } from './totals.js';

export interface OrderDetails {
  order: OrderRow;
  lines: LineItemRow[];
  fulfillments: FulfillmentRow[];
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function money(order: Pick<OrderRow, 'currency'>) {
  const decimals = currencyDecimals(order.currency);
  return (minor: number) => toDecimalNumber(minor, decimals);
}

/** The tax lines as every API shows them (the place they were charged for stays internal). */
export function taxLinesOf(order: Pick<OrderRow, 'tax_lines'>, amount: (minor: number) => number) {
  return (order.tax_lines ?? []).map((t) => ({ name: t.name, rate: t.rate, amount: amount(t.amount) }));
}

export function customerNameOf(order: OrderRow): string | null {
  const name = [order.customer_first_name, order.customer_last_name].filter(Boolean).join(' ');
  return name || null;
}

export function lineItemForMerchant(line: LineItemRow, amount: (minor: number) => number) {
  return {
    id: line.id,
    product_id: line.product_id,
    variant_id: line.variant_id,
    name: line.name,
    variant_title: line.variant_title,
    sku: line.sku,
    quantity: line.quantity,
    price: amount(line.price),
    total: amount(lineTotal(line)),
  };
}

function amountsForMerchant(order: Omit<OrderListRow, 'item_count'>) {
  const amount = money(order);
  return {
    subtotal: amount(order.subtotal),
    discount_amount: amount(order.discount_amount),
    shipping_amount: amount(order.shipping_amount),
    tax_amount: amount(order.tax_amount),
    total: amount(order.total),
    amount_paid: amount(order.amount_paid),
    amount_refunded: amount(order.amount_refunded),
    balance_due: amount(order.total - order.amount_paid),
  };
}

function buyerOf(order: Omit<OrderListRow, 'item_count'>) {
  return {
    id: order.customer_id,
    email: order.customer_email,
    first_name: order.customer_first_name,
    last_name: order.customer_last_name,
  };
}

/**
 * List item of GET /api/v1/orders: the seed's fields and the ones merchants filter on. Written out
 * in one literal (no spread of amountsForMerchant's and buyerOf's objects): it runs for every row
 * of every page.
 */
export function orderSummaryForMerchant(order: OrderListRow) {
  const decimals = currencyDecimals(order.currency);
  return {
    id: order.id,
    order_number: String(order.order_number),
    status: order.status,
    payment_status: order.payment_status,
    fulfillment_status: order.fulfillment_status,
    currency: order.currency,
    subtotal: toDecimalNumber(order.subtotal, decimals),
    discount_amount: toDecimalNumber(order.discount_amount, decimals),
    shipping_amount: toDecimalNumber(order.shipping_amount, decimals),
    tax_amount: toDecimalNumber(order.tax_amount, decimals),
    total: toDecimalNumber(order.total, decimals),
    amount_paid: toDecimalNumber(order.amount_paid, decimals),
    amount_refunded: toDecimalNumber(order.amount_refunded, decimals),
    balance_due: toDecimalNumber(order.total - order.amount_paid, decimals),
    item_count: order.item_count,
    customer: {
      id: order.customer_id,
      email: order.customer_email,
      first_name: order.customer_first_name,
      last_name: order.customer_last_name,
    },
    created_at: order.created_at.toISOString(),
    updated_at: order.updated_at.toISOString(),
  };
}

export function orderForMerchant({ order, lines, fulfillments }: OrderDetails) {
  const amount = money(order);
  return {
    id: order.id,
    order_number: String(order.order_number),
    status: order.status,
    payment_status: order.payment_status,
    fulfillment_status: order.fulfillment_status,
    currency: order.currency,
    ...amountsForMerchant(order),
    coupon_code: order.coupon_code,
    payment_method: order.payment_method,
    customer: buyerOf(order),
    shipping_address: order.shipping_address,
    shipping_method: order.shipping_method_name
      ? { rate_id: order.shipping_rate_id, name: order.shipping_method_name }
      : null,
    tax_lines: taxLinesOf(order, amount),
    taxes_included: order.taxes_included,
    notes: order.notes,
    line_items: lines.map((line) => lineItemForMerchant(line, amount)),
    fulfillments: fulfillments.map((f) => ({
      id: f.id,
      carrier: f.carrier,
      tracking_number: f.tracking_number,
      tracking_url: f.tracking_url,
      created_at: f.created_at.toISOString(),
    })),
    cancel_reason: order.cancel_reason,
    cancelled_at: iso(order.cancelled_at),
    paid_at: iso(order.paid_at),
    fulfilled_at: iso(order.fulfilled_at),
    created_at: order.created_at.toISOString(),
    updated_at: order.updated_at.toISOString(),
  };
}

export function addressForCustomer(address: Address | null) {
  if (!address) return null;
  return {
    firstName: address.first_name ?? null,
    lastName: address.last_name ?? null,
    line1: address.line1,
    line2: address.line2 ?? null,
    city: address.city,
    region: address.region ?? null,
    postalCode: address.postal_code,
    country: address.country,
    phone: address.phone ?? null,
  };
}

/** The order as its buyer sees it (storefront checkout, customer account): camelCase. */
export function orderForCustomer({ order, lines, fulfillments }: OrderDetails) {
  const amount = money(order);
  return {
    id: order.id,
    orderNumber: String(order.order_number),
    status: order.status,
    paymentStatus: order.payment_status,
    fulfillmentStatus: order.fulfillment_status,
    currency: order.currency,
    subtotal: amount(order.subtotal),
    discountAmount: amount(order.discount_amount),
    shippingAmount: amount(order.shipping_amount),
    taxAmount: amount(order.tax_amount),
    total: amount(order.total),
    amountPaid: amount(order.amount_paid),
    amountRefunded: amount(order.amount_refunded),
    balanceDue: amount(order.total - order.amount_paid),
    couponCode: order.coupon_code,
    paymentMethod: order.payment_method,
    email: order.customer_email,
    shippingAddress: addressForCustomer(order.shipping_address),
    shippingMethod: order.shipping_method_name
      ? { rateId: order.shipping_rate_id, name: order.shipping_method_name }
      : null,
    taxLines: taxLinesOf(order, amount),
    taxesIncluded: order.taxes_included,
    lineItems: lines.map((line) => ({
      id: line.id,
      productId: line.product_id,
      variantId: line.variant_id,
      name: line.name,
      variantTitle: line.variant_title,
      sku: line.sku,
      quantity: line.quantity,
      price: amount(line.price),
      total: amount(lineTotal(line)),
    })),
    shipments: fulfillments.map((f) => ({
      carrier: f.carrier,
      trackingNumber: f.tracking_number,
      trackingUrl: f.tracking_url,
      shippedAt: f.created_at.toISOString(),
    })),
    cancelReason: order.cancel_reason,
    createdAt: order.created_at.toISOString(),
    updatedAt: order.updated_at.toISOString(),
  };
}

export function orderSummaryForCustomer(order: OrderListRow) {
  return {
    id: order.id,
    orderNumber: String(order.order_number),
    status: order.status,
    paymentStatus: order.payment_status,
    fulfillmentStatus: order.fulfillment_status,
    total: money(order)(order.total),
    itemCount: order.item_count,
    createdAt: order.created_at.toISOString(),
  };
}
