import { currencyDecimals, toDecimalNumber } from '../../platform/money.js';
import type { RefundProviderName } from './order-status.schema.js';
import type { RefundRow } from './refunds.repository.js';

const amountIn = (currency: string, minor: number) => toDecimalNumber(minor, currencyDecimals(currency));

/** A refund as /api/v1 answers it (amounts in the order's currency). */
export function refundForMerchant(refund: RefundRow, currency: string) {
  return {
    id: refund.id,
    order_id: refund.order_id,
    amount: amountIn(currency, refund.amount),
    currency,
    reason: refund.reason,
    status: refund.status,
    // The column is text; only the providers of payments/providers.ts write it.
    provider: refund.provider as RefundProviderName,
    provider_refund_id: refund.provider_refund_id,
    failure_reason: refund.failure_reason,
    restocked: refund.restocked.map((r) => ({ line_item_id: r.line_item_id, quantity: r.quantity })),
    created_at: refund.created_at.toISOString(),
  };
}

/** The refund in webhook data (camelCase, like every webhook `data`). */
export function refundForWebhook(refund: RefundRow, currency: string) {
  return {
    id: refund.id,
    orderId: refund.order_id,
    amount: amountIn(currency, refund.amount),
    currency,
    reason: refund.reason,
    status: refund.status,
    // The column is text; only the providers of payments/providers.ts write it.
    provider: refund.provider as RefundProviderName,
    providerRefundId: refund.provider_refund_id,
    restocked: refund.restocked.map((r) => ({ lineItemId: r.line_item_id, quantity: r.quantity })),
    createdAt: refund.created_at.toISOString(),
  };
}
