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

/** `amount × bps / 10000`, rounded half up, in integers. */
export function applyRate(amount: number, basisPoints: number): number {
  return Math.floor((amount * basisPoints + 5000) / 10000);
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

/** What is owed follows what was paid: nothing paid, part, all, or more than the total. */
export function paymentStatusOf(total: number, amountPaid: number): PaymentStatus {
  if (amountPaid > total) return 'refund_due';
  if (amountPaid === total) return amountPaid === 0 ? 'unpaid' : 'paid';
  return amountPaid === 0 ? 'unpaid' : 'partially_paid';
}
