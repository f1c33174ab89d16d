import { invalidRequest, paymentDeclined } from '../../platform/http/errors.js';

/**
 * How checkout takes money. A provider returns the amount it collected (minor units) or throws
 * payment_declined; checkout calls it inside the order's transaction, after pricing and before any
 * stock moves, so a refusal leaves nothing behind. The built-in providers work in-process; a
 * network provider would authorise here (with an idempotency key of the checkout: inTransaction may
 * run the transaction again after a deadlock) and capture after commit.
 */
export interface PaymentProvider {
  charge(input: { amount: number; currency: string; cardToken?: string | null }): Promise<number>;
}

/** `manual`: nothing is collected now (bank transfer, cash on delivery); the order stays pending. */
const manual: PaymentProvider = {
  async charge() {
    return 0;
  },
};

/** `test_card`: Stripe-style test tokens. `tok_visa` pays; `tok_decline` is declined. */
const testCard: PaymentProvider = {
  async charge({ amount, cardToken }) {
    if (cardToken === 'tok_visa') return amount;
    if (cardToken === 'tok_decline') throw paymentDeclined('Your card was declined');
    throw invalidRequest('cardToken must be tok_visa or tok_decline for test_card payments', [
      { field: 'cardToken', message: 'unknown test card token' },
    ]);
  },
};

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

export const PAYMENT_PROVIDERS = { manual, test_card: testCard } as const;
export type PaymentMethod = keyof typeof PAYMENT_PROVIDERS;
