import type { Executor } from '../../platform/db/database.js';
import type { Writer } from '../../platform/db/write-batch.js';
import { currencyDecimals, toDecimalNumber } from '../../platform/money.js';
import { recordEvent } from '../../platform/outbox.js';
import type { LineItemRow, OrderRow } from './orders.repository.js';
import { customerNameOf, type OrderDetails, orderForCustomer } from './orders.serializers.js';
import type { RefundRow } from './refunds.repository.js';
import { refundForWebhook } from './refunds.serializers.js';

/**
 * The order events of the seed, with exactly its data fields (camelCase), written to the outbox in
 * the caller's transaction. `data` is a summary: full detail comes from GET /orders/{id}.
 */
export type OrderChangeSource = 'api' | 'admin' | 'system';
export type OrderChanges = Record<string, { before: unknown; after: unknown }>;

/** An amount of the order in its currency, as event data carries it (a JSON number). */
export function amountOf(order: { currency: string }, minor: number): number {
  return toDecimalNumber(minor, currencyDecimals(order.currency));
}

function summary(order: OrderRow, lines: LineItemRow[]) {
  return {
    orderId: order.id,
    orderNumber: String(order.order_number),
    customerEmail: order.customer_email,
    customerName: customerNameOf(order),
    total: toDecimalNumber(order.total, currencyDecimals(order.currency)),
    itemCount: lines.reduce((sum, line) => sum + line.quantity, 0),
    ...(order.coupon_code ? { couponCode: order.coupon_code } : {}),
    timestamp: new Date().toISOString(),
  };
}

export function recordOrderCreated(tx: Writer, order: OrderRow, lines: LineItemRow[]) {
  return recordEvent(tx, order.store_id, 'order.created', summary(order, lines));
}

export function recordOrderPaid(tx: Writer, order: OrderRow, lines: LineItemRow[]) {
  return recordEvent(tx, order.store_id, 'order.paid', {
    ...summary(order, lines),
    paymentMethod: order.payment_method ?? 'manual',
  });
}

export function recordOrderCancelled(tx: Executor, order: OrderRow) {
  return recordEvent(tx, order.store_id, 'order.cancelled', {
    orderId: order.id,
    orderNumber: String(order.order_number),
    customerEmail: order.customer_email,
    customerName: customerNameOf(order),
    cancelReason: order.cancel_reason,
    timestamp: new Date().toISOString(),
  });
}

/** order.refunded: `data` holds the order (as its buyer sees it) and the refund that succeeded. */
export function recordOrderRefunded(tx: Executor, order: OrderDetails, refund: RefundRow) {
  return recordEvent(tx, order.order.store_id, 'order.refunded', {
    orderId: order.order.id,
    orderNumber: String(order.order.order_number),
    customerEmail: order.order.customer_email,
    customerName: customerNameOf(order.order),
    order: orderForCustomer(order),
    refund: refundForWebhook(refund, order.order.currency),
    timestamp: new Date().toISOString(),
  });
}

/** Records order.updated when something actually changed; nothing for a no-op. */
export async function recordOrderUpdated(
  tx: Executor,
  order: OrderRow,
  changes: OrderChanges,
  source: OrderChangeSource,
) {
  if (Object.keys(changes).length === 0) return;
  await recordEvent(tx, order.store_id, 'order.updated', {
    orderId: order.id,
    orderNumber: String(order.order_number),
    changes,
    source,
    timestamp: new Date().toISOString(),
  });
}

/** `{ field: { before, after } }` for the fields whose value differs (compared as JSON). */
export function diff(before: Record<string, unknown>, after: Record<string, unknown>): OrderChanges {
  const changes: OrderChanges = {};
  for (const [field, value] of Object.entries(after)) {
    if (JSON.stringify(before[field]) !== JSON.stringify(value))
      changes[field] = { before: before[field] ?? null, after: value ?? null };
  }
  return changes;
}
