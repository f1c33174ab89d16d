/**
 * Discount evaluation: pure functions, no I/O. Money is integer minor units throughout; the
 * percentage is computed with BigInt so no floating point ever touches an amount.
 */

export type DiscountType = 'percentage' | 'fixed_amount' | 'free_shipping';

/** What evaluation needs of a discount. */
export interface DiscountRule {
  id: string;
  /** null: an automatic discount. */
  code: string | null;
  type: DiscountType;
  /** percentage: hundredths of a percent (1250 = 12.5 %); fixed_amount: minor units; free_shipping: 0. */
  value: number;
  minSubtotal: number | null;
  startsAt: Date;
  endsAt: Date | null;
  usageLimit: number | null;
  usageCount: number;
  oncePerCustomer: boolean;
  active: boolean;
  productIds: readonly string[];
  categoryIds: readonly string[];
  createdAt: Date;
}

export interface CartLine {
  productId: string;
  categoryIds: readonly string[];
  quantity: number;
  /** Minor units. */
  unitPrice: number;
}

export interface Cart {
  lines: readonly CartLine[];
  /** Minor units, the whole cart before any discount. */
  subtotal: number;
  /** Minor units, the shipping the order would pay without a discount. */
  shippingAmount: number;
  /** The customer already redeemed this discount (matters for once_per_customer ones). */
  customerHasRedeemed: boolean;
}

export type IneligibleReason =
  | 'inactive'
  | 'not_started'
  | 'expired'
  | 'usage_limit_reached'
  | 'already_redeemed'
  | 'below_minimum'
  | 'no_eligible_items';

export type Evaluation =
  | { eligible: false; reason: IneligibleReason }
  | { eligible: true; amount: number; freeShipping: boolean };

/** A short, customer-facing explanation of a reason. */
export function describeReason(reason: IneligibleReason): string {
  switch (reason) {
    case 'inactive':
      return 'it is not active';
    case 'not_started':
      return 'it has not started yet';
    case 'expired':
      return 'it has expired';
    case 'usage_limit_reached':
      return 'its usage limit has been reached';
    case 'already_redeemed':
      return 'it has already been used by this customer';
    case 'below_minimum':
      return 'the order subtotal is below its minimum';
    case 'no_eligible_items':
      return 'no item in the cart qualifies for it';
  }
}

/** All lines when the discount names no product and no category; else the lines it names. */
export function eligibleLines(discount: DiscountRule, lines: readonly CartLine[]): CartLine[] {
  if (discount.productIds.length === 0 && discount.categoryIds.length === 0) return [...lines];
  const products = new Set(discount.productIds);
  const categories = new Set(discount.categoryIds);
  return lines.filter((l) => products.has(l.productId) || l.categoryIds.some((c) => categories.has(c)));
}

/** `amount × basisPoints / 10 000`, rounded half up, in integers. */
export function percentageOf(amount: number, hundredthsOfPercent: number): number {
  return Number((BigInt(amount) * BigInt(hundredthsOfPercent) + 5_000n) / 10_000n);
}

export function evaluate(discount: DiscountRule, cart: Cart, now: Date): Evaluation {
  const no = (reason: IneligibleReason): Evaluation => ({ eligible: false, reason });
  if (!discount.active) return no('inactive');
  if (now.getTime() < discount.startsAt.getTime()) return no('not_started');
  if (discount.endsAt !== null && now.getTime() >= discount.endsAt.getTime()) return no('expired');
  if (discount.usageLimit !== null && discount.usageCount >= discount.usageLimit) {
    return no('usage_limit_reached');
  }
  if (discount.oncePerCustomer && cart.customerHasRedeemed) return no('already_redeemed');
  if (discount.minSubtotal !== null && cart.subtotal < discount.minSubtotal) return no('below_minimum');

  const lines = eligibleLines(discount, cart.lines);
  if (lines.length === 0) return no('no_eligible_items');
  const eligibleSubtotal = lines.reduce((sum, l) => sum + l.quantity * l.unitPrice, 0);

  switch (discount.type) {
    case 'free_shipping':
      return { eligible: true, amount: 0, freeShipping: true };
    case 'percentage':
      return {
        eligible: true,
        amount: Math.min(percentageOf(eligibleSubtotal, discount.value), cart.subtotal),
        freeShipping: false,
      };
    case 'fixed_amount':
      return {
        eligible: true,
        amount: Math.min(discount.value, eligibleSubtotal, cart.subtotal),
        freeShipping: false,
      };
  }
}

/** What the customer saves with an eligible discount: its amount, or the shipping it waives. */
export function savingOf(result: { amount: number; freeShipping: boolean }, cart: Cart): number {
  return result.freeShipping ? cart.shippingAmount : result.amount;
}

/**
 * The eligible automatic discount (code null) with the greatest saving; ties go to the older one.
 * A discount that would save nothing is not applied. `redeemedIds` names the discounts this
 * customer has already redeemed (in addition to `cart.customerHasRedeemed`, which applies to all).
 */
export function bestAutomatic<D extends DiscountRule>(
  discounts: readonly D[],
  cart: Cart,
  now: Date,
  redeemedIds: ReadonlySet<string> = new Set(),
): { discount: D; amount: number; freeShipping: boolean } | null {
  let best: { discount: D; amount: number; freeShipping: boolean; saving: number } | null = null;
  for (const discount of discounts) {
    if (discount.code !== null) continue;
    const result = evaluate(
      discount,
      { ...cart, customerHasRedeemed: cart.customerHasRedeemed || redeemedIds.has(discount.id) },
      now,
    );
    if (!result.eligible) continue;
    const saving = savingOf(result, cart);
    if (saving <= 0) continue;
    if (!best || saving > best.saving || (saving === best.saving && isOlder(discount, best.discount))) {
      best = { discount, amount: result.amount, freeShipping: result.freeShipping, saving };
    }
  }
  return best && { discount: best.discount, amount: best.amount, freeShipping: best.freeShipping };
}

function isOlder(a: DiscountRule, b: DiscountRule): boolean {
  const diff = a.createdAt.getTime() - b.createdAt.getTime();
  return diff !== 0 ? diff < 0 : a.id < b.id;
}
