import type { PaymentStatus } from '../modules/orders/index.js';

/**
 * Refunds in the sample history, so analytics show net revenue: a small share of the fulfilled
 * orders got money back some days after delivery, in full or in part, recorded as the store records
 * its own refunds (succeeded, no provider id, nothing restocked: seeded orders are history).
 */

export interface SampleRefund {
  id: string;
  store_id: string;
  order_id: string;
  amount: number;
  reason: string;
  status: 'succeeded';
  provider: string;
  provider_refund_id: null;
  failure_reason: null;
  /** JSON text, as the refunds table stores it. */
  restocked: string;
  created_at: Date;
  updated_at: Date;
}

/** The fields of a sample order a refund reads and changes. */
export interface RefundableOrder {
  id: string;
  store_id: string;
  total: number;
  amount_paid: number;
  amount_refunded: number;
  payment_status: PaymentStatus;
  payment_method: string;
  fulfilled_at: Date | null;
  updated_at: Date;
}

/** About one fulfilled order in thirty is refunded; a third of those in full. */
export const REFUNDED_SHARE = 1 / 30;
const REASONS = [
  'damaged in transit',
  'item not as described',
  'customer changed their mind',
  'late delivery',
];
const DAY = 24 * 3600_000;

/**
 * Maybe refunds `order` (a fulfilled, paid one): when it does, the order's `amount_refunded`,
 * payment status and update time follow, and the refund is returned.
 */
export function maybeRefund(
  order: RefundableOrder,
  rand: () => number,
  nowMs: number,
  idAt: (ms: number) => string,
): SampleRefund | undefined {
  if (!order.fulfilled_at || order.amount_paid <= 0 || rand() >= REFUNDED_SHARE) return undefined;
  const full = rand() < 1 / 3;
  const amount = full ? order.amount_paid : Math.max(1, Math.round(order.amount_paid * (0.1 + rand() * 0.4)));
  const atMs = Math.min(nowMs, order.fulfilled_at.getTime() + Math.round((1 + rand() * 14) * DAY));
  order.amount_refunded = amount;
  order.payment_status = full ? 'refunded' : 'partially_refunded';
  if (atMs > order.updated_at.getTime()) order.updated_at = new Date(atMs);
  return {
    id: idAt(atMs),
    store_id: order.store_id,
    order_id: order.id,
    amount,
    reason: REASONS[Math.floor(rand() * REASONS.length)] as string,
    status: 'succeeded',
    provider: order.payment_method === 'test_card' ? 'test_card' : 'manual',
    provider_refund_id: null,
    failure_reason: null,
    restocked: '[]',
    created_at: new Date(atMs),
    updated_at: new Date(atMs),
  };
}
