import type { Logger } from 'pino';
import type { Db } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { JobKind } from '../../platform/jobs.js';
import * as repo from './payments.repository.js';
import type { StripeAccounts } from './stripe-account.js';
import { intentMismatch } from './stripe-checks.js';
import { stripeFailure } from './stripe-client.js';
import {
  createPaymentIntent,
  releaseAwaitedPayment,
  type StripeProviderDeps,
  settleAwaitedPayment,
} from './stripe-provider.js';

/** What Stripe said of an expired hold: the buyer paid after all, or the PaymentIntent is cancelled. */
export type HoldVerdict = { paid: true; amount: number } | { paid: false };

export interface HoldExpiryDeps {
  db: Db;
  accounts: StripeAccounts;
  orders: StripeProviderDeps['orders'];
  logger: Logger;
  /** STRIPE_TIMEOUT_MS: a claim's lease outlasts the Stripe calls of one job with their retries. */
  stripeTimeoutMs: number;
}

/**
 * The `payment_hold_expiry` job kind: an order still waiting for its card payment after
 * PAYMENT_HOLD_MINUTES is settled with Stripe, outside any transaction, then recorded:
 *   - Stripe says the PaymentIntent succeeded (a webhook lost or late) → the order is paid, provided
 *     it received the order's whole amount in its currency (else the order is released, logged);
 *   - otherwise the PaymentIntent is cancelled at Stripe, then the order (stock back, reason
 *     `payment_expired`).
 * An order whose PaymentIntent was never recorded (the server died between the order's commit and
 * Stripe's answer) asks Stripe again with the same idempotency key, which returns the PaymentIntent
 * the lost call may have created (or creates one), and cancels it the same way. A Stripe that cannot
 * be reached leaves the claim to its lease and the job is tried again; a store whose Stripe account
 * is gone has nothing to cancel there, and its order is released at once. Nothing is held forever.
 */
export function paymentHoldExpiryJobs(deps: HoldExpiryDeps): JobKind<repo.StripePaymentRow, HoldVerdict> {
  const { db, accounts, logger } = deps;
  const leaseMs = Math.max(60_000, deps.stripeTimeoutMs * 6);
  const orderNumberOf = async (payment: repo.StripePaymentRow) => {
    const ctx = {
      storeId: payment.store_id,
      actor: { kind: 'system' as const, id: 'payment_hold_expiry' },
      source: 'system' as const,
      scopes: [],
    };
    return String((await deps.orders.get(ctx, payment.order_id)).order.order_number);
  };
  return {
    name: 'payment_hold_expiry',
    concurrency: 8,
    batchSize: 1,
    claim: (limit) => repo.claimExpired(db, limit, leaseMs),
    secondsUntilDue: () => repo.secondsUntilNextExpiry(db),
    async perform(payment) {
      const account = await accounts.find(db, payment.store_id);
      if (!account) return { paid: false };
      const stripe = await accounts.client(account);
      const intent = payment.payment_intent_id
        ? await stripe.paymentIntents.retrieve(payment.payment_intent_id)
        : await createPaymentIntent(stripe, payment, await orderNumberOf(payment));
      if (intent.status === 'succeeded') {
        const mismatch = intentMismatch(payment.store_id, payment, intent, true);
        if (!mismatch) return { paid: true, amount: payment.amount };
        // Succeeded for less than the order (or in another currency): not a payment of this order.
        // It cannot be cancelled any more; the order is released and the merchant refunds it.
        logger.warn(
          {
            storeId: payment.store_id,
            orderId: payment.order_id,
            paymentIntentId: intent.id,
            reason: mismatch,
          },
          'PaymentIntent succeeded without paying the order: the order is released; refund it in Stripe',
        );
        return { paid: false };
      }
      if (intent.status !== 'canceled') {
        const cancelled = await stripe.paymentIntents.cancel(intent.id);
        if (cancelled.status !== 'canceled')
          throw new Error(`the PaymentIntent is ${cancelled.status}, not cancelled`);
      }
      return { paid: false };
    },
    async record(outcomes) {
      for (const outcome of outcomes) {
        const { store_id: storeId, order_id: orderId } = outcome.job;
        if (!outcome.ok) {
          logger.warn(
            { storeId, orderId, reason: stripeFailure(outcome.error) },
            'payment hold not settled with Stripe; tried again after the lease',
          );
          continue;
        }
        const verdict = outcome.result;
        await inTransaction(db, (tx) =>
          verdict.paid
            ? settleAwaitedPayment(tx, deps.orders, storeId, orderId, verdict.amount)
            : releaseAwaitedPayment(tx, deps.orders, storeId, orderId, 'payment_expired'),
        );
      }
    },
  };
}
