import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyRate,
  lineTotal,
  type PricedLine,
  paymentStatusOf,
  quoteOf,
  refundStatusOf,
  type StorePricing,
  subtotalOf,
  totalOf,
} from './totals.js';

/** $5.00 flat shipping, free from $50.00, 8.25 % tax. */
const STORE: StorePricing = { shippingFlatRate: 500, freeShippingThreshold: 5000, taxRateBps: 825 };

const line = (price: number, quantity: number): PricedLine => ({ price, quantity });

describe('line and subtotal arithmetic', () => {
  it.each([
    [1999, 1, 1999],
    [1999, 3, 5997],
    [0, 5, 0],
    [1, 100_000, 100_000],
  ])('lineTotal(%i × %i) = %i', (price, quantity, total) => {
    expect(lineTotal(line(price, quantity))).toBe(total);
  });

  it.each([
    [[], 0],
    [[line(1999, 2)], 3998],
    [[line(1999, 2), line(500, 1), line(1, 3)], 4501],
  ])('subtotalOf(%j) = %i', (lines, subtotal) => {
    expect(subtotalOf(lines)).toBe(subtotal);
  });
});

describe('applyRate: amount × basis points / 10000, rounded half up', () => {
  it.each([
    [10000, 825, 825],
    [1000, 825, 83], // 82.5 → 83
    [999, 825, 82], // 82.4175 → 82
    [1, 5000, 1], // 0.5 → 1
    [1, 4999, 0], // 0.4999 → 0
    [3333, 1500, 500], // 499.95 → 500
    [7032538125, 1256, 883286789], // 883286788.5 → 883286789
    [200, 2500, 50], // exact
    [0, 825, 0],
    [12345, 0, 0],
    [10000, 10000, 10000], // 100 %
  ])('applyRate(%i, %i) = %i', (amount, bps, expected) => {
    expect(applyRate(amount, bps)).toBe(expected);
  });

  it('is within half a minor unit of the exact product, halves rounding up', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 10 }),
        fc.integer({ min: 0, max: 10_000 }),
        (amount, bps) => {
          const rounded = applyRate(amount, bps);
          expect(Number.isInteger(rounded)).toBe(true);
          const exactTimes10000 = amount * bps;
          expect(rounded * 10000 - exactTimes10000).toBeGreaterThan(-5000);
          expect(rounded * 10000 - exactTimes10000).toBeLessThanOrEqual(5000);
        },
      ),
    );
  });
});

describe('totalOf: max(0, subtotal − discount + shipping + tax)', () => {
  it.each([
    [{ subtotal: 5000, discount: 0, shipping: 500, tax: 413 }, 5913],
    [{ subtotal: 5000, discount: 1000, shipping: 500, tax: 330 }, 4830],
    [{ subtotal: 1000, discount: 1000, shipping: 0, tax: 0 }, 0],
    // An edit can bring the subtotal under the frozen discount: the total stops at 0.
    [{ subtotal: 500, discount: 2000, shipping: 500, tax: 100 }, 0],
    [{ subtotal: 0, discount: 0, shipping: 0, tax: 0 }, 0],
  ])('%j → %i', (parts, total) => {
    expect(totalOf(parts)).toBe(total);
  });

  it('is never negative', () => {
    const amount = fc.integer({ min: 0, max: 10 ** 12 });
    fc.assert(
      fc.property(amount, amount, amount, amount, (subtotal, discount, shipping, tax) => {
        const total = totalOf({ subtotal, discount, shipping, tax });
        expect(total).toBeGreaterThanOrEqual(0);
        expect(total).toBe(Math.max(0, subtotal - discount + shipping + tax));
      }),
    );
  });
});

describe('quoteOf: a new order', () => {
  it.each([
    {
      name: 'below the free-shipping threshold: flat shipping, tax on the subtotal',
      lines: [line(1999, 2)],
      discount: null,
      pricing: STORE,
      quote: { subtotal: 3998, discount: 0, shipping: 500, tax: 330, total: 4828 },
    },
    {
      name: 'exactly at the threshold: free shipping',
      lines: [line(2500, 2)],
      discount: null,
      pricing: STORE,
      quote: { subtotal: 5000, discount: 0, shipping: 0, tax: 413, total: 5413 },
    },
    {
      name: 'one minor unit under the threshold: flat shipping',
      lines: [line(4999, 1)],
      discount: null,
      pricing: STORE,
      quote: { subtotal: 4999, discount: 0, shipping: 500, tax: 412, total: 5911 },
    },
    {
      name: 'the threshold is compared with subtotal − discount',
      lines: [line(6000, 1)],
      discount: { amount: 1500, freeShipping: false },
      pricing: STORE,
      quote: { subtotal: 6000, discount: 1500, shipping: 500, tax: 371, total: 5371 },
    },
    {
      name: 'tax on (subtotal − discount), rounded half up',
      lines: [line(1000, 1)],
      discount: { amount: 200, freeShipping: false },
      pricing: { ...STORE, taxRateBps: 1250 },
      quote: { subtotal: 1000, discount: 200, shipping: 500, tax: 100, total: 1400 },
    },
    {
      name: 'a discount larger than the subtotal is capped at it',
      lines: [line(800, 1)],
      discount: { amount: 1000, freeShipping: false },
      pricing: STORE,
      quote: { subtotal: 800, discount: 800, shipping: 500, tax: 0, total: 500 },
    },
    {
      name: 'a free-shipping discount',
      lines: [line(1000, 1)],
      discount: { amount: 0, freeShipping: true },
      pricing: STORE,
      quote: { subtotal: 1000, discount: 0, shipping: 0, tax: 83, total: 1083 },
    },
    {
      name: 'no threshold: shipping is never free by amount',
      lines: [line(100_000, 1)],
      discount: null,
      pricing: { ...STORE, freeShippingThreshold: null },
      quote: { subtotal: 100_000, discount: 0, shipping: 500, tax: 8250, total: 108_750 },
    },
    {
      name: 'a threshold of 0: always free',
      lines: [line(1, 1)],
      discount: null,
      pricing: { ...STORE, freeShippingThreshold: 0 },
      quote: { subtotal: 1, discount: 0, shipping: 0, tax: 0, total: 1 },
    },
    {
      name: 'no tax rate',
      lines: [line(1999, 1)],
      discount: null,
      pricing: { ...STORE, taxRateBps: 0 },
      quote: { subtotal: 1999, discount: 0, shipping: 500, tax: 0, total: 2499 },
    },
  ])('$name', ({ lines, discount, pricing, quote }) => {
    expect(quoteOf(lines, discount, pricing)).toEqual(quote);
  });

  it('an order without shipping pays none', () => {
    expect(quoteOf([line(1000, 1)], null, STORE, { shipping: false })).toEqual({
      subtotal: 1000,
      discount: 0,
      shipping: 0,
      tax: 83,
      total: 1083,
    });
  });

  const lines = fc.array(
    fc.record({ price: fc.integer({ min: 0, max: 10 ** 7 }), quantity: fc.integer({ min: 1, max: 1000 }) }),
    { maxLength: 20 },
  );
  const discount = fc.option(
    fc.record({ amount: fc.integer({ min: 0, max: 10 ** 9 }), freeShipping: fc.boolean() }),
  );
  const pricing = fc.record({
    shippingFlatRate: fc.integer({ min: 0, max: 10 ** 5 }),
    freeShippingThreshold: fc.option(fc.integer({ min: 0, max: 10 ** 7 })),
    taxRateBps: fc.integer({ min: 0, max: 5000 }),
  });

  it('integer minor units in, integer minor units out; never negative; the parts add up', () => {
    fc.assert(
      fc.property(lines, discount, pricing, fc.boolean(), (ls, d, p, shipping) => {
        const quote = quoteOf(ls, d, p, { shipping });
        for (const value of Object.values(quote)) {
          expect(Number.isSafeInteger(value)).toBe(true);
          expect(value).toBeGreaterThanOrEqual(0);
        }
        expect(quote.subtotal).toBe(subtotalOf(ls));
        expect(quote.discount).toBe(Math.min(d?.amount ?? 0, quote.subtotal));
        expect(quote.tax).toBe(applyRate(quote.subtotal - quote.discount, p.taxRateBps));
        expect(quote.shipping === 0 || quote.shipping === p.shippingFlatRate).toBe(true);
        // The discount never exceeds the subtotal, so nothing needs clamping here.
        expect(quote.total).toBe(quote.subtotal - quote.discount + quote.shipping + quote.tax);
      }),
    );
  });

  it('shipping is charged exactly when nothing makes it free', () => {
    fc.assert(
      fc.property(lines, discount, pricing, fc.boolean(), (ls, d, p, shipping) => {
        const quote = quoteOf(ls, d, p, { shipping });
        const free =
          !shipping ||
          d?.freeShipping === true ||
          (p.freeShippingThreshold !== null && quote.subtotal - quote.discount >= p.freeShippingThreshold);
        expect(quote.shipping).toBe(free ? 0 : p.shippingFlatRate);
      }),
    );
  });
});

describe('the edit-items formula', () => {
  /** POST /orders/{id}/edit-items: new subtotal, discount, shipping and tax frozen, difference = new − old. */
  function edit(order: ReturnType<typeof quoteOf>, newLines: PricedLine[]) {
    const subtotal = subtotalOf(newLines);
    const total = totalOf({ subtotal, discount: order.discount, shipping: order.shipping, tax: order.tax });
    return { subtotal, total, priceDifference: total - order.total };
  }

  it.each([
    {
      name: 'a quantity raised: the difference is the added lines, nothing else moves',
      before: [line(1999, 2)],
      after: [line(1999, 3)],
      edited: { subtotal: 5997, total: 6827, priceDifference: 1999 },
    },
    {
      name: 'a line removed: a negative difference (to refund)',
      before: [line(1999, 2), line(500, 1)],
      after: [line(1999, 2)],
      edited: { subtotal: 3998, total: 4869, priceDifference: -500 },
    },
    {
      name: 'crossing the free-shipping threshold does not change the frozen shipping',
      before: [line(1999, 2)],
      after: [line(1999, 4)],
      edited: { subtotal: 7996, total: 8826, priceDifference: 3998 },
    },
  ])('$name', ({ before, after, edited }) => {
    expect(edit(quoteOf(before, null, STORE), after)).toEqual(edited);
  });

  it('a subtotal edited under the frozen discount stops at a total of 0', () => {
    const order = quoteOf([line(3000, 1)], { amount: 2500, freeShipping: true }, { ...STORE, taxRateBps: 0 });
    expect(order).toEqual({ subtotal: 3000, discount: 2500, shipping: 0, tax: 0, total: 500 });
    expect(edit(order, [line(1000, 1)])).toEqual({ subtotal: 1000, total: 0, priceDifference: -500 });
  });

  it('the difference is the change of subtotal while the total stays above 0', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 7 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 100 }),
        (price, before, after) => {
          const order = quoteOf([line(price, before)], null, STORE);
          expect(edit(order, [line(price, after)]).priceDifference).toBe(price * (after - before) || 0);
        },
      ),
    );
  });
});

describe('paymentStatusOf', () => {
  it.each([
    [5000, 0, 'unpaid'],
    [5000, 1, 'partially_paid'],
    [5000, 4999, 'partially_paid'],
    [5000, 5000, 'paid'],
    [5000, 5001, 'refund_due'],
    [0, 0, 'unpaid'],
    [0, 100, 'refund_due'],
    // A paid order edited upwards owes the difference; edited downwards, it is owed a refund.
    [6999, 5000, 'partially_paid'],
    [4000, 5000, 'refund_due'],
  ] as const)('total %i, paid %i → %s', (total, paid, status) => {
    expect(paymentStatusOf(total, paid)).toBe(status);
  });
});

describe('refundStatusOf', () => {
  it.each([
    [5000, 0, undefined],
    [5000, 1, 'partially_refunded'],
    [5000, 4999, 'partially_refunded'],
    [5000, 5000, 'refunded'],
    // Refunds counted at the provider beyond a later edit of what was paid: still all of it.
    [4000, 5000, 'refunded'],
  ] as const)('paid %i, refunded %i → %s', (paid, refunded, status) => {
    expect(refundStatusOf(paid, refunded)).toBe(status);
  });
});
