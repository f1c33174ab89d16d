import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currencyDecimals, MAX_AMOUNT } from '../../platform/money.js';
import type { TaxRegion } from '../regions/index.js';
import { type AppliedRate, percentOf, spreadAmount, taxOf, taxOn, taxRegionFor } from './tax.js';

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

/** Up to 8 lines whose totals stay within MAX_AMOUNT together. */
const lineAmounts = fc.array(fc.integer({ min: 0, max: Math.floor(MAX_AMOUNT / 8) }), {
  minLength: 1,
  maxLength: 8,
});
const rates = fc.integer({ min: 0, max: 100_000 });

const rateOf = (rateMillipercent: number, shippingTaxable = false): AppliedRate => ({
  name: 'VAT',
  rateMillipercent,
  country: 'DE',
  region: null,
  shippingTaxable,
});

/** Lines, their taxable flags, a discount of at most their sum, shipping and a rate. */
const orders = lineAmounts.chain((amounts) =>
  fc.record({
    lines: fc.tuple(...amounts.map((amount) => fc.boolean().map((taxable) => ({ amount, taxable })))),
    discount: fc.integer({ min: 0, max: sum(amounts) }),
    shipping: fc.integer({ min: 0, max: 1_000_000 }),
    rate: rates,
    shippingTaxable: fc.boolean(),
  }),
);

describe('the discount spread over the lines', () => {
  it('sums exactly to the discount, no share negative or over its line, remainder at the end', () => {
    fc.assert(
      fc.property(
        lineAmounts.chain((a) => fc.tuple(fc.constant(a), fc.integer({ min: 0, max: sum(a) }))),
        ([amounts, discount]) => {
          const shares = spreadAmount(amounts, discount);
          expect(sum(shares)).toBe(discount);
          shares.forEach((s, i) => {
            expect(s).toBeGreaterThanOrEqual(0);
            expect(s).toBeLessThanOrEqual(amounts[i] ?? 0);
          });
        },
      ),
    );
  });

  it('is proportional, with the remainder on the last line', () => {
    // 1000 over 3000 + 3000 + 3000: 333 + 333 + 334.
    expect(spreadAmount([3000, 3000, 3000], 1000)).toEqual([333, 333, 334]);
    // A free last line takes nothing: the remainder moves to the line before it.
    expect(spreadAmount([1, 1, 0], 1)).toEqual([0, 1, 0]);
    expect(spreadAmount([1, 1, 1], 2)).toEqual([0, 1, 1]);
    expect(spreadAmount([500, 0], 0)).toEqual([0, 0]);
  });
});

describe('tax per line', () => {
  it('tax_amount = Σ line taxes (+ shipping) = Σ tax_lines; non-taxable lines carry none', () => {
    fc.assert(
      fc.property(orders, fc.boolean(), (o, inclusive) => {
        const r = taxOf({ ...o, rate: rateOf(o.rate, o.shippingTaxable), inclusive });
        expect(r.tax).toBe(sum(r.lineTaxes) + r.shippingTax);
        expect(sum(r.taxLines.map((t) => t.amount))).toBe(r.tax);
        o.lines.forEach((l, i) => {
          if (!l.taxable) expect(r.lineTaxes[i]).toBe(0);
          expect(Number.isSafeInteger(r.lineTaxes[i])).toBe(true);
        });
        if (!o.shippingTaxable) expect(r.shippingTax).toBe(0);
      }),
    );
  });

  it('taxes each line on its discounted share, rounded half up', () => {
    // 19 % of 0.05 = 0.0095 → 0.01; of 0.02 = 0.0038 → 0.00: per line, not on the sum.
    const r = taxOf({
      lines: [
        { amount: 5, taxable: true },
        { amount: 2, taxable: true },
      ],
      discount: 0,
      shipping: 0,
      rate: rateOf(19_000),
      inclusive: false,
    });
    expect(r.lineTaxes).toEqual([1, 0]);
    // 7.25 % of 10.00 = 0.725 → 0.73 (half up).
    expect(taxOn(1000, 7250, false)).toBe(73);
    expect(taxOn(1000, 7250, true)).toBe(68); // 1000 × 7.25 / 107.25 = 67.599…
    expect(percentOf(7250)).toBe('7.25');
    expect(percentOf(19_000)).toBe('19');
    expect(percentOf(5)).toBe('0.005');
  });

  it('with taxes included, net + tax = gross per line and in total, within one unit of the exclusive tax of the net', () => {
    fc.assert(
      fc.property(orders, (o) => {
        const r = taxOf({ ...o, rate: rateOf(o.rate, o.shippingTaxable), inclusive: true });
        const shares = spreadAmount(
          o.lines.map((l) => l.amount),
          o.discount,
        );
        let grossTotal = 0;
        let netTotal = 0;
        o.lines.forEach((l, i) => {
          const gross = l.amount - (shares[i] ?? 0);
          const tax = r.lineTaxes[i] ?? 0;
          const net = gross - tax;
          expect(net + tax).toBe(gross);
          expect(net).toBeGreaterThanOrEqual(0);
          if (l.taxable) expect(Math.abs(taxOn(net, o.rate, false) - tax)).toBeLessThanOrEqual(1);
          grossTotal += gross;
          netTotal += net;
        });
        expect(netTotal + sum(r.lineTaxes)).toBe(grossTotal);
        if (o.shippingTaxable)
          expect(
            Math.abs(taxOn(o.shipping - r.shippingTax, o.rate, false) - r.shippingTax),
          ).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('rounds to the minor unit of zero- and three-decimal currencies (JPY, KWD)', () => {
    expect(currencyDecimals('JPY')).toBe(0);
    expect(currencyDecimals('KWD')).toBe(3);
    // ¥1,005 at 10 %: ¥100.5 → ¥101; KWD 1.005 at 7.25 %: 0.0728625 → 0.073.
    expect(taxOn(1005, 10_000, false)).toBe(101);
    expect(taxOn(1005, 7250, false)).toBe(73);
    for (const currency of ['JPY', 'KWD']) {
      const scale = 10 ** currencyDecimals(currency);
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0, max: 1_000_000 * scale }), { minLength: 1, maxLength: 6 }),
          rates,
          fc.boolean(),
          (amounts, rate, inclusive) => {
            const r = taxOf({
              lines: amounts.map((amount) => ({ amount, taxable: true })),
              discount: 0,
              shipping: 0,
              rate: rateOf(rate),
              inclusive,
            });
            for (const t of r.lineTaxes) expect(Number.isInteger(t)).toBe(true);
            expect(sum(r.taxLines.map((t) => t.amount))).toBe(r.tax);
          },
        ),
      );
    }
  });

  it('a store-wide rate taxes the discounted sum once (as before §12), spread exactly over the lines', () => {
    fc.assert(
      fc.property(orders, (o) => {
        const r = taxOf({ ...o, rate: rateOf(o.rate), inclusive: false, storeWide: true });
        const shares = spreadAmount(
          o.lines.map((l) => l.amount),
          o.discount,
        );
        const taxable = sum(o.lines.map((l, i) => (l.taxable ? l.amount - (shares[i] ?? 0) : 0)));
        expect(r.tax).toBe(taxOn(taxable, o.rate, false));
        expect(sum(r.lineTaxes)).toBe(r.tax);
      }),
    );
  });
});

describe('the tax region of an address', () => {
  const region = (country: string, code: string | null, rate: number): TaxRegion => ({
    id: `${country}${code}`,
    country,
    region: code,
    name: code ? 'State tax' : 'Sales tax',
    rateMillipercent: rate,
    shippingTaxable: false,
  });
  const regions = [region('US', null, 4000), region('US', 'US-CA', 7250), region('DE', null, 19_000)];

  it("is the region's (as the code or the part after the hyphen, any case), else the country's, else none", () => {
    expect(taxRegionFor(regions, { country: 'US', region: 'CA' })?.rateMillipercent).toBe(7250);
    expect(taxRegionFor(regions, { country: 'us', region: 'us-ca' })?.rateMillipercent).toBe(7250);
    expect(taxRegionFor(regions, { country: 'US', region: 'ca' })?.rateMillipercent).toBe(7250);
    expect(taxRegionFor(regions, { country: 'US', region: 'NY' })?.rateMillipercent).toBe(4000);
    expect(taxRegionFor(regions, { country: 'US', region: null })?.rateMillipercent).toBe(4000);
    expect(taxRegionFor(regions, { country: 'DE', region: 'BE' })?.rateMillipercent).toBe(19_000);
    expect(taxRegionFor(regions, { country: 'FR' })).toBeNull();
  });
});
