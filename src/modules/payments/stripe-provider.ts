import type { Logger } from 'pino';
import type Stripe from 'stripe';
import type { Db, Tx } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { invalidRequest, unavailable } from '../../platform/http/errors.js';
import type { OrdersService } from '../orders/index.js';
import * as repo from './payments.repository.js';
import type { PaymentProvider, PaymentSession } from './providers.js';
import type { StripeAccount, StripeAccounts } from './stripe-account.js';
import { stripeFailure } from './stripe-client.js';

export interface StripeProviderDeps {
  db: Db;
  accounts: StripeAccounts;
  orders: Pick<OrdersService, 'cancelUnpaid' | 'recordProviderPayment' | 'get'>;
  /** PAYMENT_HOLD_MINUTES. */
  holdMinutes: number;
  logger: Logger;
}

/**
 * The idempotency key of an order's PaymentIntent: a retry (or the hold expiry) finds the same one,
 * provided it sends the same parameters (Stripe refuses a key reused with others): createPaymentIntent
 * derives every one of them from the order.
 */
export const paymentIntentKey = (orderId: string) => `emporium-order-${orderId}`;

/** The PaymentIntent of an awaited payment, as created (or found again by its idempotency key). */
export function createPaymentIntent(
  stripe: Stripe,
  payment: { store_id: string; order_id: string; amount: number; currency: string },
  orderNumber: string,
) {
  return stripe.paymentIntents.create(
    {
      amount: payment.amount,
      currency: payment.currency.toLowerCase(),
      automatic_payment_methods: { enabled: true },
      metadata: {
        store_id: payment.store_id,
        order_id: payment.order_id,
        order_number: orderNumber,
      },
    },
    { idempotencyKey: paymentIntentKey(payment.order_id) },
  );
}

/**
 * Releases an order whose payment will not come (reason `payment_failed`, `payment_expired`,
 * `payment_unavailable`): the payment row locked first, then the order through the orders service,
 * stock back. False when it was settled already (paid or cancelled by someone else).
 */
export async function releaseAwaitedPayment(
  tx: Tx,
  orders: StripeProviderDeps['orders'],
  storeId: string,
  orderId: string,
  reason: string,
): Promise<boolean> {
  const payment = await repo.lockPayment(tx, storeId, { orderId });
  if (payment?.status !== 'awaiting') return false;
  await orders.cancelUnpaid(tx, storeId, orderId, reason);
  await repo.setPaymentStatus(tx, storeId, orderId, 'cancelled');
  return true;
}

/** Records an awaited payment as paid (Stripe said succeeded): payment row first, then the order. */
export async function settleAwaitedPayment(
  tx: Tx,
  orders: StripeProviderDeps['orders'],
  storeId: string,
  orderId: string,
  amount: number,
): Promise<boolean> {
  const payment = await repo.lockPayment(tx, storeId, { orderId });
  if (!payment || payment.status === 'succeeded') return false;
  await orders.recordProviderPayment(tx, storeId, orderId, { amount, paymentMethod: 'stripe' });
  await repo.setPaymentStatus(tx, storeId, orderId, 'succeeded');
  return true;
}

const sessionOf = (account: StripeAccount, intent: Stripe.PaymentIntent): PaymentSession => ({
  provider: 'stripe',
  paymentIntentId: intent.id,
  clientSecret: intent.client_secret ?? '',
  publishableKey: account.publishableKey,
  status: 'requires_payment',
});

/** `stripe`: the order waits (stock held) while the buyer pays a PaymentIntent in the browser. */
export function createStripeProvider(deps: StripeProviderDeps): PaymentProvider {
  const { db, accounts, logger } = deps;
  return {
    method: 'stripe',
    confirmsLater: true,

    async charge({ executor, storeId, amount }) {
      const account = await accounts.find(executor, storeId);
      if (!account?.enabled)
        throw invalidRequest('This store does not take Stripe payments', [
          { field: 'paymentMethod', message: 'Stripe is not connected for this store' },
        ]);
      if (amount <= 0)
        throw invalidRequest('Nothing to pay: an order of 0 is placed with paymentMethod manual', [
          { field: 'paymentMethod', message: 'the total is 0' },
        ]);
      return 0;
    },

    async hold(tx, { order }) {
      const now = new Date();
      await repo.insertPayment(tx, {
        store_id: order.store_id,
        order_id: order.id,
        amount: order.total,
        currency: order.currency,
        status: 'awaiting',
        expires_at: new Date(now.getTime() + deps.holdMinutes * 60_000),
        created_at: now,
        updated_at: now,
      });
    },

    async open(_ctx, { order }) {
      const account = await accounts.find(db, order.store_id);
      try {
        if (!account) throw new Error('the Stripe account was removed');
        const intent = await createPaymentIntent(
          await accounts.client(account),
          { store_id: order.store_id, order_id: order.id, amount: order.total, currency: order.currency },
          String(order.order_number),
        );
        await repo.setPaymentIntent(db, order.store_id, order.id, intent.id);
        return sessionOf(account, intent);
      } catch (error) {
        logger.warn(
          { orderId: order.id, storeId: order.store_id, reason: stripeFailure(error) },
          'Stripe PaymentIntent not created: the order is cancelled and its stock released',
        );
        await inTransaction(db, (tx) =>
          releaseAwaitedPayment(tx, deps.orders, order.store_id, order.id, 'payment_unavailable'),
        );
        throw unavailable(
          'The card payment service cannot be reached; the order was not placed. Retry shortly',
        );
      }
    },

    async resume(_ctx, { order }) {
      const payment = await repo.findPayment(db, order.store_id, order.id);
      if (!payment?.payment_intent_id || payment.status !== 'awaiting') return null;
      const account = await accounts.find(db, order.store_id);
      if (!account) return null;
      try {
        const intent = await (await accounts.client(account)).paymentIntents.retrieve(
          payment.payment_intent_id,
        );
        return sessionOf(account, intent);
      } catch (error) {
        logger.warn(
          { orderId: order.id, reason: stripeFailure(error) },
          'Stripe PaymentIntent not retrieved',
        );
        throw unavailable('The card payment service cannot be reached; retry shortly');
      }
    },
  };
}
