import type { Logger } from 'pino';
import type Stripe from 'stripe';
import type { Db } from '../../platform/db/database.js';
import type { ExternalRefund, RefundGateway } from '../orders/index.js';
import * as repo from './payments.repository.js';
import type { StripeAccounts } from './stripe-account.js';
import { isStripeError, stripeFailure } from './stripe-client.js';

/**
 * Refunds of Stripe-paid orders through Stripe's refunds API (the orders module's RefundGateway
 * port, called after the refund row is committed, outside every transaction). The idempotency key
 * is our refund's id, so a retry never refunds twice; `metadata.refund_id` lets Stripe's
 * charge.refunded report be matched back to it. Stripe refusing (4xx) fails the refund with its
 * reason; no answer (network, 5xx, time-out) throws, and the refund stays pending until Stripe's
 * report settles it.
 */
export function createStripeRefundGateway(deps: {
  db: Db;
  accounts: StripeAccounts;
  logger: Logger;
}): RefundGateway {
  const { db, accounts } = deps;
  return {
    handles: (paymentMethod) => paymentMethod === 'stripe',
    async refund(request) {
      const payment = await repo.findPayment(db, request.storeId, request.orderId);
      const account = await accounts.find(db, request.storeId);
      if (!payment?.payment_intent_id || payment.status !== 'succeeded' || !account)
        return {
          status: 'failed',
          providerRefundId: null,
          error: 'the order has no Stripe payment to refund',
        };
      try {
        const refund = await (await accounts.client(account)).refunds.create(
          {
            payment_intent: payment.payment_intent_id,
            amount: request.amount,
            metadata: {
              refund_id: request.refundId,
              order_id: request.orderId,
              store_id: request.storeId,
              ...(request.reason ? { reason: request.reason.slice(0, 500) } : {}),
            },
          },
          { idempotencyKey: request.refundId },
        );
        const status =
          refund.status === 'succeeded'
            ? 'succeeded'
            : refund.status === 'failed' || refund.status === 'canceled'
              ? 'failed'
              : 'pending';
        return {
          status,
          providerRefundId: refund.id,
          ...(status === 'failed'
            ? { error: refund.failure_reason ?? `Stripe answered ${refund.status}` }
            : {}),
        };
      } catch (error) {
        const refused =
          isStripeError(error) &&
          error.statusCode !== undefined &&
          error.statusCode >= 400 &&
          error.statusCode < 500 &&
          error.statusCode !== 409 &&
          error.statusCode !== 429;
        if (refused) return { status: 'failed', providerRefundId: null, error: error.message };
        deps.logger.warn(
          { orderId: request.orderId, refundId: request.refundId, reason: stripeFailure(error) },
          'Stripe refund not answered: it stays pending until Stripe reports it',
        );
        throw error;
      }
    },
  };
}

/**
 * The refunds of an order's PaymentIntent, listed from Stripe (outside any transaction) when
 * charge.refunded reports one: the event's own list (absent in recent API versions) is not trusted.
 * Only succeeded refunds of that PaymentIntent in the order's currency are money that moved.
 */
export async function refundsOfPaymentIntent(
  stripe: Stripe,
  paymentIntentId: string,
  currency: string,
): Promise<ExternalRefund[]> {
  const listed = (await stripe.refunds.list({ payment_intent: paymentIntentId, limit: 100 })).data;
  return listed
    .filter(
      (r) =>
        r.status === 'succeeded' &&
        r.payment_intent === paymentIntentId &&
        r.currency.toLowerCase() === currency.toLowerCase(),
    )
    .map((r) => ({
      providerRefundId: r.id,
      amount: r.amount,
      reason: r.metadata?.reason ?? r.reason ?? null,
      emporiumRefundId: r.metadata?.refund_id ?? null,
    }));
}
