import { describe, expect, it } from 'vitest';
import type { StripePaymentRow } from './payments.repository.js';
import { chargeMismatch, intentMismatch } from './stripe-checks.js';

const STORE = 'store-a';
const payment = {
  store_id: STORE,
  order_id: 'order-1',
  payment_intent_id: 'pi_1',
  amount: 7199,
  currency: 'USD',
  status: 'awaiting',
} as StripePaymentRow;
const intent = {
  id: 'pi_1',
  metadata: { store_id: STORE, order_id: 'order-1' },
  currency: 'usd',
  amount: 7199,
  amount_received: 7199,
};

describe('intentMismatch', () => {
  it.each([
    ['fits', payment, intent, true, null],
    ['no stored payment', undefined, intent, true, 'no order'],
    [
      'metadata of another store',
      payment,
      { ...intent, metadata: { ...intent.metadata, store_id: 'b' } },
      true,
      'metadata',
    ],
    [
      'metadata of another order',
      payment,
      { ...intent, metadata: { ...intent.metadata, order_id: 'o2' } },
      true,
      'metadata',
    ],
    ['another currency', payment, { ...intent, currency: 'eur' }, true, 'currency'],
    ['another amount', payment, { ...intent, amount: 1, amount_received: 1 }, true, 'amount 1'],
    ['less received', payment, { ...intent, amount_received: 1 }, true, 'amount received 1'],
    ['a failure needs no amount', payment, { ...intent, amount_received: 0 }, false, null],
    ['a failure in another currency', payment, { ...intent, currency: 'eur' }, false, 'currency'],
  ] as const)('%s', (_name, p, i, succeeded, expected) => {
    const answer = intentMismatch(STORE, p, i, succeeded);
    if (expected === null) expect(answer).toBeNull();
    else expect(answer).toContain(expected);
  });
});

describe('chargeMismatch', () => {
  const paid = { ...payment, status: 'succeeded' } as StripePaymentRow;
  it.each([
    ['fits', paid, 'usd', null],
    ['no stored payment', undefined, 'usd', 'no order'],
    ['an unpaid order', payment, 'usd', 'not paid'],
    ['another currency', paid, 'eur', 'currency'],
  ] as const)('%s', (_name, p, currency, expected) => {
    const answer = chargeMismatch(p, { currency });
    if (expected === null) expect(answer).toBeNull();
    else expect(answer).toContain(expected);
  });
});
