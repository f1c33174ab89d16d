import type { Writer } from '../../platform/db/write-batch.js';
import type { OrderRow } from './orders.repository.js';
import type { OrdersDeps } from './orders.shared.js';

/**
 * When an order's e-mails are queued (contract §13, docs/decisions.md): each in the transaction of
 * its cause, under a key naming that cause, so a replayed cause (a retried checkout, a cart
 * completed twice, a replayed Stripe event) queues nothing more.
 */

type Mail = Pick<OrdersDeps, 'mailOrder'>;

/** The buyer's receipt: to the address on the order. */
export async function mailConfirmation(deps: Mail, tx: Writer, order: OrderRow) {
  await deps.mailOrder?.(tx, {
    storeId: order.store_id,
    kind: 'order_confirmation',
    to: order.customer_email,
    orderId: order.id,
    dedupeKey: `order_confirmation:${order.id}`,
  });
}

/** The merchant's "new order": to the store's contact e-mail (its owner's when unset). */
export async function mailNewOrder(deps: Mail, tx: Writer, order: OrderRow) {
  await deps.mailOrder?.(tx, {
    storeId: order.store_id,
    kind: 'new_order',
    orderId: order.id,
    dedupeKey: `new_order:${order.id}`,
  });
}

export async function mailShipped(deps: Mail, tx: Writer, order: OrderRow, fulfillmentId: string) {
  await deps.mailOrder?.(tx, {
    storeId: order.store_id,
    kind: 'shipping_confirmation',
    to: order.customer_email,
    orderId: order.id,
    refs: { fulfillment_id: fulfillmentId },
    dedupeKey: `shipping_confirmation:${fulfillmentId}`,
  });
}

export async function mailCancelled(deps: Mail, tx: Writer, order: OrderRow) {
  await deps.mailOrder?.(tx, {
    storeId: order.store_id,
    kind: 'order_cancelled',
    to: order.customer_email,
    orderId: order.id,
    dedupeKey: `order_cancelled:${order.id}`,
  });
}

export async function mailRefunded(deps: Mail, tx: Writer, order: OrderRow, refundId: string) {
  await deps.mailOrder?.(tx, {
    storeId: order.store_id,
    kind: 'refund_issued',
    to: order.customer_email,
    orderId: order.id,
    refs: { refund_id: refundId },
    dedupeKey: `refund_issued:${refundId}`,
  });
}
