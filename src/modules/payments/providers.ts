import type { Executor, Tx } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/http/context.js';
import { invalidRequest, paymentDeclined } from '../../platform/http/errors.js';
import type { OrderDetails } from '../orders/index.js';

export const PAYMENT_METHODS = ['manual', 'test_card', 'stripe'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/**
 * The payment a buyer still has to make with a provider that confirms later (contract §9: Stripe's
 * PaymentIntent, paid in the browser with its client secret).
 */
export interface PaymentSession {
  provider: 'stripe';
  paymentIntentId: string;
  clientSecret: string;
  publishableKey: string;
  status: 'requires_payment';
}

/**
 * How checkout takes money, in its two phases (docs/decisions.md, "Payments in two phases"):
 * (a) in the order's transaction: `charge` before any stock moves (an in-process provider settles
 *     here; a refusal leaves nothing behind), then `hold` once the order is written (what the
 *     provider must find again later, in the same transaction as the order);
 * (b) after commit, outside every transaction and lock: `open` asks a provider that confirms later
 *     for the buyer's payment session.
 * Nothing of phase (a) may reach the network: inTransaction's callers may run it again after a
 * deadlock, and a network call there would hold the transaction's locks for its whole duration.
 */
export interface PaymentProvider {
  readonly method: PaymentMethod;
  /** The order waits for a confirmation after commit: payment_status `pending`, stock held. */
  readonly confirmsLater: boolean;
  /** Phase (a): the amount collected now (minor units), or a throw (402, 400) that places nothing. */
  charge(input: ChargeInput): Promise<number>;
  /** Phase (a), after the order is written, in its transaction. */
  hold?(tx: Tx, placed: OrderDetails): Promise<void>;
  /** Phase (b): the buyer's payment session; throws 503 (and releases the order) when unreachable. */
  open?(ctx: RequestContext, placed: OrderDetails): Promise<PaymentSession>;
  /** The session of an order placed earlier (an Idempotency-Key replay, a completed cart); null: none. */
  resume?(ctx: RequestContext, placed: OrderDetails): Promise<PaymentSession | null>;
}

export interface ChargeInput {
  /** The order's transaction: reads only. */
  executor: Executor;
  storeId: string;
  amount: number;
  currency: string;
  cardToken?: string | null;
}

/** `manual`: nothing is collected now (bank transfer, cash on delivery); the order stays pending. */
export const manualProvider: PaymentProvider = {
  method: 'manual',
  confirmsLater: false,
  async charge() {
    return 0;
  },
};

/** `test_card`: Stripe-style test tokens. `tok_visa` pays; `tok_decline` is declined. */
export const testCardProvider: PaymentProvider = {
  method: 'test_card',
  confirmsLater: false,
  async charge({ amount, cardToken }) {
    if (cardToken === 'tok_visa') return amount;
    if (cardToken === 'tok_decline') throw paymentDeclined('Your card was declined');
    throw invalidRequest('cardToken must be tok_visa or tok_decline for test_card payments', [
      { field: 'cardToken', message: 'unknown test card token' },
    ]);
  },
};
