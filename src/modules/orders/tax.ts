import { subdivisionOf } from '../../platform/iso3166.js';
import type { TaxRegion } from '../regions/index.js';
import type { StoredTaxLine } from './orders.tables.js';

/**
 * Pure tax arithmetic of contract §12, in integers (BigInt where a product may pass 2^53): the
 * discount spread over the lines, tax per line rounded half up, taxes contained in inclusive prices.
 */

/** A rate as applied to an order: the tax region's (or the store-wide rate's), and its place. */
export interface AppliedRate {
  name: string;
  /** Thousandths of a percent: 19 % → 19000. */
  rateMillipercent: number;
  country: string | null;
  region: string | null;
  shippingTaxable: boolean;
}

const HUNDRED_PERCENT = 100_000n;

/** `numerator / denominator` rounded half up, for non-negative integers. */
function divideHalfUp(numerator: bigint, denominator: bigint): number {
  return Number((2n * numerator + denominator) / (2n * denominator));
}

/**
 * The tax on `amount` at `rateMillipercent`: added on top (`amount × rate`), or contained in it
 * when prices include tax (`amount × rate / (100 + rate)`), rounded half up to the minor unit.
 */
export function taxOn(amount: number, rateMillipercent: number, inclusive: boolean): number {
  if (amount <= 0 || rateMillipercent <= 0) return 0;
  const rate = BigInt(rateMillipercent);
  const product = BigInt(amount) * rate;
  return divideHalfUp(product, inclusive ? HUNDRED_PERCENT + rate : HUNDRED_PERCENT);
}

/** 7250 → "7.25", 19000 → "19": the rate as tax regions write it. */
export function percentOf(rateMillipercent: number): string {
  const whole = Math.floor(rateMillipercent / 1000);
  const fraction = String(rateMillipercent % 1000)
    .padStart(3, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/**
 * Spreads `amount` (≤ Σ weights) over lines in proportion to their weights: each takes the floor of
 * its proportional share, and what the floors leave (fewer units than there are lines) goes on the
 * last line, or, as far as the last line cannot take it without passing its own weight (a free
 * last line), on the lines before it, from the end. The shares sum to `amount` exactly, none is
 * negative and none passes its line's weight.
 */
export function spreadAmount(weights: readonly number[], amount: number): number[] {
  const sum = weights.reduce((s, w) => s + w, 0);
  if (amount <= 0 || sum <= 0) return weights.map(() => 0);
  const total = BigInt(sum);
  const shares = weights.map((w) => Number((BigInt(amount) * BigInt(w)) / total));
  let left = amount - shares.reduce((s, x) => s + x, 0);
  for (let i = shares.length - 1; i >= 0 && left > 0; i--) {
    const take = Math.min(left, (weights[i] ?? 0) - (shares[i] ?? 0));
    shares[i] = (shares[i] ?? 0) + take;
    left -= take;
  }
  return shares;
}

/**
 * The tax region for an address: its region's (written "US-CA" or "CA", in any case), else its
 * country's; null when none applies (the rate is then 0).
 */
export function taxRegionFor(
  regions: readonly TaxRegion[],
  address: { country: string; region?: string | null },
): TaxRegion | null {
  const country = address.country.toUpperCase();
  const subdivision = subdivisionOf(country, address.region);
  const inCountry = regions.filter((r) => r.country === country);
  return (
    (subdivision ? inCountry.find((r) => r.region === subdivision) : undefined) ??
    inCountry.find((r) => r.region === null) ??
    null
  );
}

export interface TaxInput {
  /** Each line's total (price × quantity) and whether its product is taxable. */
  lines: readonly { amount: number; taxable: boolean }[];
  /** The order's discount (≤ Σ line amounts). */
  discount: number;
  shipping: number;
  rate: AppliedRate | null;
  inclusive: boolean;
  /**
   * The store-wide rate of a store without tax regions: one tax on the taxable lines' discounted
   * sum (as before §12, so such stores' totals do not move), then spread over those lines.
   */
  storeWide?: boolean;
}

export interface TaxResult {
  /** Each line's rounded tax, in the order of `lines`. */
  lineTaxes: number[];
  shippingTax: number;
  /** Σ lineTaxes + shippingTax: the order's tax_amount. */
  tax: number;
  /** One line per rate and place, its amount the sum of the rounded taxes charged at it. */
  taxLines: StoredTaxLine[];
}

/** An order's tax: per line on its share of the discounted subtotal, plus shipping's if taxable. */
export function taxOf(input: TaxInput): TaxResult {
  const { rate, inclusive } = input;
  const amounts = input.lines.map((l) => l.amount);
  const shares = spreadAmount(amounts, input.discount);
  const taxable = input.lines.map((l, i) => (l.taxable ? (amounts[i] ?? 0) - (shares[i] ?? 0) : 0));
  if (!rate || rate.rateMillipercent <= 0)
    return { lineTaxes: taxable.map(() => 0), shippingTax: 0, tax: 0, taxLines: [] };
  let lineTaxes: number[];
  if (input.storeWide) {
    const whole = taxOn(
      taxable.reduce((s, a) => s + a, 0),
      rate.rateMillipercent,
      inclusive,
    );
    lineTaxes = spreadAmount(taxable, whole);
  } else {
    lineTaxes = taxable.map((a) => taxOn(a, rate.rateMillipercent, inclusive));
  }
  const shippingTax = rate.shippingTaxable ? taxOn(input.shipping, rate.rateMillipercent, inclusive) : 0;
  const tax = lineTaxes.reduce((s, t) => s + t, 0) + shippingTax;
  return {
    lineTaxes,
    shippingTax,
    tax,
    taxLines: [
      {
        name: rate.name,
        rate: percentOf(rate.rateMillipercent),
        amount: tax,
        country: rate.country,
        region: rate.region,
        shipping_taxable: rate.shippingTaxable,
      },
    ],
  };
}
