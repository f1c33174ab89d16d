/**
 * How refunds reach the provider that took the money (contract §9). The orders module owns refunds;
 * a provider that holds the money (Stripe) is reached through this port, implemented by the payments
 * module and injected at the composition root, so orders never imports payments.
 *
 * `refund` is called after the refund row is committed, outside every transaction and row lock,
 * with `refundId` as the provider's idempotency key: a retry never refunds twice.
 */
export interface ProviderRefundRequest {
  storeId: string;
  orderId: string;
  /** Our refund's id: the idempotency key and the provider-side metadata `refund_id`. */
  refundId: string;
  paymentMethod: string;
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
  reason: string | null;
}

export interface ProviderRefundResult {
  status: 'succeeded' | 'pending' | 'failed';
  providerRefundId: string | null;
  /** Why it failed, for the merchant (never a secret). */
  error?: string;
}

export interface RefundGateway {
  /** Whether this gateway refunds orders paid with `paymentMethod` (e.g. `stripe`). */
  handles(paymentMethod: string): boolean;
  refund(request: ProviderRefundRequest): Promise<ProviderRefundResult>;
}

/**
 * A refund made at the provider (e.g. in Stripe's dashboard), reported by its webhook. Matched to
 * our own refunds by `emporiumRefundId` (the metadata we sent) or `providerRefundId`, so a refund
 * we made is never counted twice.
 */
export interface ExternalRefund {
  providerRefundId: string;
  /** Minor units. */
  amount: number;
  reason: string | null;
  emporiumRefundId?: string | null;
}
