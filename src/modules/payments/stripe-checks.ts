import type Stripe from 'stripe';
import type { StripePaymentRow } from './payments.repository.js';

/**
 * Whether what Stripe reports fits the payment we stored for the order. A valid signature proves
 * the event came from the store's Stripe account, not that it is about this order: a PaymentIntent
 * or a charge is only believed when it is the one stored on the order, in its currency (and, for a
 * success, for its whole amount). Each function answers why it does not fit, or null when it does.
 */

const sameCurrency = (a: string | undefined, b: string) => a?.toLowerCase() === b.toLowerCase();

/**
 * A PaymentIntent reported for a store's order: ours (the id stored on the payment, the metadata we
 * set), in the order's currency; a success must have received the whole amount, since less would
 * leave the order partially paid with its stock held (the hold expiry releases it instead).
 */
export function intentMismatch(
  storeId: string,
  payment: StripePaymentRow | undefined,
  intent: Pick<Stripe.PaymentIntent, 'id' | 'metadata' | 'currency' | 'amount' | 'amount_received'>,
  succeeded: boolean,
): string | null {
  if (!payment) return 'no order of this store has this PaymentIntent';
  if (intent.metadata?.store_id !== storeId || intent.metadata?.order_id !== payment.order_id)
    return "the PaymentIntent's metadata names another order";
  if (!sameCurrency(intent.currency, payment.currency))
    return `currency ${intent.currency} is not the order's ${payment.currency}`;
  if (!succeeded) return null;
  if (intent.amount !== payment.amount)
    return `amount ${intent.amount} is not the order's ${payment.amount} (minor units)`;
  if ((intent.amount_received ?? 0) < payment.amount)
    return `amount received ${intent.amount_received ?? 0} is less than the order's ${payment.amount} (minor units)`;
  return null;
}

/** A charge reported refunded: of the order's own, paid PaymentIntent, in its currency. */
export function chargeMismatch(
  payment: StripePaymentRow | undefined,
  charge: Pick<Stripe.Charge, 'currency'>,
): string | null {
  if (!payment) return 'no order of this store has the PaymentIntent of this charge';
  if (payment.status !== 'succeeded') return 'the order was not paid with this PaymentIntent';
  if (!sameCurrency(charge.currency, payment.currency))
    return `currency ${charge.currency} is not the order's ${payment.currency}`;
  return null;
}
