import { MAX_AMOUNT } from '../../platform/money.js';
import type { PaymentStatus } from './orders.tables.js';

/** Pure order arithmetic on integer minor units: no floating point touches money. */

export interface PricedLine {
  price: number;
  quantity: number;
}

export function lineTotal(line: PricedLine): number {
  return line.price * line.quantity;
}

export function subtotalOf(lines: PricedLine[]): number {
  return lines.reduce((sum, line) => sum + lineTotal(line), 0);
}

/**
 * `amount × bps / 10000`, rounded half up, in integers. In BigInt: the product of an amount up to
 * MAX_AMOUNT and a rate up to 10,000 bps exceeds Number.MAX_SAFE_INTEGER.
 */
export function applyRate(amount: number, basisPoints: number): number {
  return Number((BigInt(amount) * BigInt(basisPoints) + 5000n) / 10000n);
}

export function totalOf(parts: {
  subtotal: number;
  discount: number;
  shipping: number;
  tax: number;
}): number {
  return Math.max(0, parts.subtotal - parts.discount + parts.shipping + parts.tax);
}

export interface StorePricing {
  shippingFlatRate: number;
  /** Shipping is free when subtotal − discount reaches it; null: never. */
  freeShippingThreshold: number | null;
  taxRateBps: number;
}

export interface Quote {
  subtotal: number;
  discount: number;
  shipping: number;
  tax: number;
  total: number;
}

/**
 * A new order's amounts: the discount never exceeds the subtotal; shipping is the flat rate unless
 * the discounted subtotal reaches the free-shipping threshold or a free-shipping discount applies;
 * tax is the store's rate on (subtotal − discount).
 */
export function quoteOf(
  lines: PricedLine[],
  discount: { amount: number; freeShipping: boolean } | null,
  pricing: StorePricing,
  options: { shipping: boolean } = { shipping: true },
): Quote {
  const subtotal = subtotalOf(lines);
  const discountAmount = Math.min(discount?.amount ?? 0, subtotal);
  const discounted = subtotal - discountAmount;
  const freeShipping =
    !options.shipping ||
    discount?.freeShipping === true ||
    (pricing.freeShippingThreshold !== null && discounted >= pricing.freeShippingThreshold);
  const shipping = freeShipping ? 0 : pricing.shippingFlatRate;
  const tax = applyRate(discounted, pricing.taxRateBps);
  return {
    subtotal,
    discount: discountAmount,
    shipping,
    tax,
    total: totalOf({ subtotal, discount: discountAmount, shipping, tax }),
  };
}

/**
 * Whether every amount of an order is at most MAX_AMOUNT minor units. The subtotal bounds each line
 * (prices and quantities are non-negative) as well as the discount and the tax (at most 100 %); the
 * total adds shipping. Computed in doubles, a sum is exact while it stays within this bound, and
 * once a true sum passes it the computed one cannot fall back under it.
 */
export function amountsInRange(amounts: { subtotal: number; total: number }): boolean {
  return amounts.subtotal <= MAX_AMOUNT && amounts.total <= MAX_AMOUNT;
}

/** What is owed follows what was paid: nothing paid, part, all, or more than the total. */
export function paymentStatusOf(total: number, amountPaid: number): PaymentStatus {
  if (amountPaid > total) return 'refund_due';
  if (amountPaid === total) return amountPaid === 0 ? 'unpaid' : 'paid';
  return amountPaid === 0 ? 'unpaid' : 'partially_paid';
}

/**
 * Once money went back to the buyer, the payment status says how much of what was paid: every
 * unit (`refunded`) or part of it (`partially_refunded`); undefined while nothing was refunded.
 */
export function refundStatusOf(amountPaid: number, amountRefunded: number): PaymentStatus | undefined {
  if (amountRefunded <= 0) return undefined;
  return amountRefunded >= amountPaid ? 'refunded' : 'partially_refunded';
}
