import type { Logger } from 'pino';
import type Stripe from 'stripe';
import type { Db } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { invalidRequest } from '../../platform/http/errors.js';
import type { OrdersService } from '../orders/index.js';
import * as repo from './payments.repository.js';
import type { StripeAccounts } from './stripe-account.js';
import { chargeMismatch, intentMismatch } from './stripe-checks.js';
import { stripeFailure, verifyStripeEvent } from './stripe-client.js';
import { releaseAwaitedPayment, type StripeProviderDeps, settleAwaitedPayment } from './stripe-provider.js';
import { refundsOfPaymentIntent } from './stripe-refunds.js';

export type StripeEventOutcome = 'processed' | 'replayed' | 'ignored';

export interface StripeEventsDeps {
  db: Db;
  accounts: StripeAccounts;
  orders: StripeProviderDeps['orders'] & Pick<OrdersService, 'recordProviderRefunds'>;
  logger: Logger;
}

/**
 * Stripe's events for one store (POST /api/payments/stripe/{slug}/webhook). The signature is checked
 * with the store's webhook secret before anything is read; each event id is processed once per
 * store: its row in stripe_events is inserted in the transaction of its effect, so concurrent
 * deliveries of one event wait on the unique key and then find it done.
 */
export function createStripeEvents(deps: StripeEventsDeps) {
  const { db, accounts, logger } = deps;

  /** An event that does not fit the order it names: answered 200 (Stripe must not retry), logged. */
  const ignore = (storeId: string, event: Stripe.Event, paymentIntentId: string | null, reason: string) => {
    logger.warn(
      { storeId, eventId: event.id, type: event.type, paymentIntentId, reason },
      'Stripe event ignored: it does not fit the payment stored on the order',
    );
    return 'ignored' as const;
  };

  return {
    async receive(
      storeId: string,
      payload: string,
      signature: string | undefined,
    ): Promise<StripeEventOutcome> {
      const account = await accounts.find(db, storeId);
      if (!account)
        throw invalidRequest('Stripe is not connected for this store', [
          { field: 'Stripe-Signature', message: 'no webhook secret to verify it with' },
        ]);
      if (!signature)
        throw invalidRequest('The Stripe-Signature header is missing', [
          { field: 'Stripe-Signature', message: 'is required' },
        ]);
      let event: Stripe.Event;
      try {
        event = await verifyStripeEvent(payload, signature, account.webhookSecret);
      } catch (error) {
        throw invalidRequest(`The Stripe-Signature does not verify: ${stripeFailure(error)}`, [
          { field: 'Stripe-Signature', message: 'bad or stale signature' },
        ]);
      }
      switch (event.type) {
        case 'payment_intent.succeeded':
        case 'payment_intent.payment_failed':
        case 'payment_intent.canceled':
          return this.intentChanged(storeId, event, event.data.object);
        case 'charge.refunded':
          return this.chargeRefunded(storeId, event, event.data.object);
        default:
          return 'ignored';
      }
    },

    async intentChanged(storeId: string, event: Stripe.Event, intent: Stripe.PaymentIntent) {
      const succeeded = event.type === 'payment_intent.succeeded';
      const outcome = await inTransaction(db, async (tx): Promise<StripeEventOutcome> => {
        if (!(await repo.markEventProcessed(tx, storeId, event.id, event.type))) return 'replayed';
        const payment = await repo.lockPayment(tx, storeId, { paymentIntentId: intent.id });
        const mismatch = intentMismatch(storeId, payment, intent, succeeded);
        if (mismatch || !payment) return ignore(storeId, event, intent.id, mismatch ?? '');
        if (succeeded) {
          // The stored amount, which the checks above found received in full.
          await settleAwaitedPayment(tx, deps.orders, storeId, payment.order_id, payment.amount);
        } else {
          await releaseAwaitedPayment(tx, deps.orders, storeId, payment.order_id, 'payment_failed');
        }
        return 'processed';
      });
      // A failed attempt leaves the PaymentIntent open for another card; the order is cancelled now,
      // so the PaymentIntent is too (after commit), lest the buyer pay an order that is gone.
      if (outcome === 'processed' && event.type === 'payment_intent.payment_failed') {
        const account = await accounts.find(db, storeId);
        if (account)
          await (await accounts.client(account)).paymentIntents
            .cancel(intent.id)
            .catch((error: unknown) =>
              logger.warn(
                { paymentIntentId: intent.id, reason: stripeFailure(error) },
                'PaymentIntent not cancelled',
              ),
            );
      }
      return outcome;
    },

    /**
     * Refunds of a Stripe-paid order reported by Stripe, through the orders service, which matches
     * them to ours by id under the order's lock (so a refund is never counted twice, however often
     * and however concurrently it is reported), and which records no more than was paid. The
     * charge only says which order to look at: its refunds are listed from Stripe for the
     * PaymentIntent stored on the order, never taken from the event. Listing them needs Stripe, so
     * this one is not a single transaction: the event is marked processed once they are recorded,
     * and a replay that slips in before that finds every refund already matched.
     */
    async chargeRefunded(storeId: string, event: Stripe.Event, charge: Stripe.Charge) {
      if (await repo.isEventProcessed(db, storeId, event.id)) return 'replayed';
      const intentId =
        typeof charge.payment_intent === 'string' ? charge.payment_intent : charge.payment_intent?.id;
      const payment = intentId ? await repo.findPaymentByIntent(db, storeId, intentId) : undefined;
      const mismatch = chargeMismatch(payment, charge);
      if (mismatch || !payment?.payment_intent_id)
        return ignore(storeId, event, intentId ?? null, mismatch ?? '');
      const account = await accounts.find(db, storeId);
      if (!account) return 'ignored';
      const refunds = await refundsOfPaymentIntent(
        await accounts.client(account),
        payment.payment_intent_id,
        payment.currency,
      );
      const { capped } = await deps.orders.recordProviderRefunds(storeId, payment.order_id, refunds);
      for (const refund of capped)
        logger.warn(
          { storeId, eventId: event.id, type: event.type, paymentIntentId: intentId, ...refund },
          'Stripe refund recorded only up to what the order was paid',
        );
      const first = await inTransaction(db, (tx) =>
        repo.markEventProcessed(tx, storeId, event.id, event.type),
      );
      return first ? 'processed' : 'replayed';
    },
  };
}

export type StripeEvents = ReturnType<typeof createStripeEvents>;
