import { describe, expect, it } from 'vitest';
import {
  bestAutomatic,
  type Cart,
  type CartLine,
  type DiscountRule,
  describeReason,
  evaluate,
  type IneligibleReason,
  percentageOf,
} from './evaluate.js';

const NOW = new Date('2026-11-23T12:00:00.000Z');
const HOUR = 3_600_000;

function discount(overrides: Partial<DiscountRule> = {}): DiscountRule {
  return {
    id: 'd-1',
    code: 'SAVE',
    type: 'percentage',
    value: 1000,
    minSubtotal: null,
    startsAt: new Date(NOW.getTime() - HOUR),
    endsAt: null,
    usageLimit: null,
    usageCount: 0,
    oncePerCustomer: false,
    active: true,
    productIds: [],
    categoryIds: [],
    createdAt: new Date(NOW.getTime() - 24 * HOUR),
    ...overrides,
  };
}

const line = (productId: string, unitPrice: number, quantity = 1, categoryIds: string[] = []): CartLine => ({
  productId,
  categoryIds,
  quantity,
  unitPrice,
});

function cart(lines: CartLine[], overrides: Partial<Cart> = {}): Cart {
  return {
    lines,
    subtotal: lines.reduce((s, l) => s + l.quantity * l.unitPrice, 0),
    shippingAmount: 500,
    customerHasRedeemed: false,
    ...overrides,
  };
}

// Cart: shirt 2 × 10.00 (category tops), mug 1 × 5.99 (category kitchen), hat 1 × 0.01 (no category).
const basket = cart([line('shirt', 1000, 2, ['tops']), line('mug', 599, 1, ['kitchen']), line('hat', 1)]);

describe('evaluate: eligibility', () => {
  it.each<[string, Partial<DiscountRule>, Partial<Cart>, IneligibleReason]>([
    ['inactive', { active: false }, {}, 'inactive'],
    ['starts in the future', { startsAt: new Date(NOW.getTime() + 1) }, {}, 'not_started'],
    ['ended just now (ends_at is exclusive)', { endsAt: NOW }, {}, 'expired'],
    ['ended long ago', { endsAt: new Date(NOW.getTime() - HOUR) }, {}, 'expired'],
    ['usage limit reached', { usageLimit: 10, usageCount: 10 }, {}, 'usage_limit_reached'],
    [
      'usage count over the limit (limit lowered)',
      { usageLimit: 3, usageCount: 5 },
      {},
      'usage_limit_reached',
    ],
    [
      'once per customer, already redeemed',
      { oncePerCustomer: true },
      { customerHasRedeemed: true },
      'already_redeemed',
    ],
    ['below the minimum subtotal', { minSubtotal: 2601 }, {}, 'below_minimum'],
    ['limited to a product not in the cart', { productIds: ['lamp'] }, {}, 'no_eligible_items'],
    ['limited to a category not in the cart', { categoryIds: ['garden'] }, {}, 'no_eligible_items'],
    ['an empty cart', {}, { lines: [], subtotal: 0 }, 'no_eligible_items'],
  ])('%s → %s', (_, rule, cartOverrides, reason) => {
    expect(evaluate(discount(rule), { ...basket, ...cartOverrides }, NOW)).toEqual({
      eligible: false,
      reason,
    });
    expect(describeReason(reason)).toMatch(/\w/);
  });

  it.each<[string, Partial<DiscountRule>, Partial<Cart>]>([
    ['starts exactly now', { startsAt: NOW }, {}],
    ['ends a millisecond later', { endsAt: new Date(NOW.getTime() + 1) }, {}],
    ['one use left', { usageLimit: 10, usageCount: 9 }, {}],
    ['once per customer, not yet redeemed', { oncePerCustomer: true }, {}],
    ['redeemed before, but not once per customer', {}, { customerHasRedeemed: true }],
    ['subtotal exactly at the minimum', { minSubtotal: 2600 }, {}],
  ])('%s → eligible', (_, rule, cartOverrides) => {
    expect(evaluate(discount(rule), { ...basket, ...cartOverrides }, NOW).eligible).toBe(true);
  });
});

describe('evaluate: amounts', () => {
  it.each<[string, Partial<DiscountRule>, number]>([
    // 10 % of 26.00 = 2.60
    ['10 % of the whole cart', { value: 1000 }, 260],
    ['100 % of the whole cart', { value: 10_000 }, 2600],
    // 12.5 % of 26.00 = 3.25
    ['12.5 % of the whole cart', { value: 1250 }, 325],
    // 15 % of 5.99 = 0.8985 → 0.90 (half up)
    ['15 % limited to a product', { value: 1500, productIds: ['mug'] }, 90],
    // 10 % of 20.00 = 2.00
    ['10 % limited to a category', { value: 1000, categoryIds: ['tops'] }, 200],
    // 10 % of 25.99 = 2.599 → 2.60
    ['10 % on a product or a category', { value: 1000, productIds: ['mug'], categoryIds: ['tops'] }, 260],
    // 0.01 % of 26.00 = 0.0026 → 0.00
    ['0.01 % rounds down below half a cent', { value: 1 }, 0],
    ['fixed 5.00 off the cart', { type: 'fixed_amount', value: 500 }, 500],
    ['fixed 50.00 capped at the cart', { type: 'fixed_amount', value: 5000 }, 2600],
    [
      'fixed 10.00 capped at the eligible lines',
      { type: 'fixed_amount', value: 1000, productIds: ['mug'] },
      599,
    ],
    [
      'fixed 10.00 on a category worth more',
      { type: 'fixed_amount', value: 1000, categoryIds: ['tops'] },
      1000,
    ],
  ])('%s', (_, rule, amount) => {
    expect(evaluate(discount(rule), basket, NOW)).toEqual({ eligible: true, amount, freeShipping: false });
  });

  it('free shipping takes nothing off the subtotal and waives shipping', () => {
    expect(evaluate(discount({ type: 'free_shipping', value: 0 }), basket, NOW)).toEqual({
      eligible: true,
      amount: 0,
      freeShipping: true,
    });
  });

  it.each([
    [5, 5000, 3], // 0.05 × 50 % = 0.025 → 0.03 (exactly half rounds up)
    [15, 5000, 8], // 0.075 → 0.08
    [1, 4999, 0], // 0.004999 → 0.00
    [1, 5000, 1], // 0.005 → 0.01
    [333, 3333, 111], // 3.33 × 33.33 % = 1.109889 → 1.11
    [9_007_199_254_740, 9_999, 9_006_298_534_815], // large amounts stay exact
  ])('percentageOf(%i, %i) = %i (half up, integers only)', (amount, bps, expected) => {
    expect(percentageOf(amount, bps)).toBe(expected);
  });
});

describe('bestAutomatic', () => {
  const auto = (id: string, rule: Partial<DiscountRule>, ageHours = 24) =>
    discount({ id, code: null, createdAt: new Date(NOW.getTime() - ageHours * HOUR), ...rule });

  it('returns null when nothing applies', () => {
    expect(bestAutomatic([], basket, NOW)).toBeNull();
    expect(
      bestAutomatic([auto('a', { active: false }), auto('b', { minSubtotal: 10_000 })], basket, NOW),
    ).toBeNull();
  });

  it('ignores discounts with a code', () => {
    expect(bestAutomatic([discount({ code: 'BIG', value: 5000 })], basket, NOW)).toBeNull();
  });

  it('picks the greatest saving, counting free shipping as the shipping amount', () => {
    const tenPercent = auto('ten', { value: 1000 }); // 2.60
    const threeOff = auto('three', { type: 'fixed_amount', value: 300 }); // 3.00
    const freeShip = auto('ship', { type: 'free_shipping', value: 0 }); // 5.00 of shipping
    expect(bestAutomatic([tenPercent, threeOff, freeShip], basket, NOW)).toEqual({
      discount: freeShip,
      amount: 0,
      freeShipping: true,
    });
    expect(bestAutomatic([tenPercent, threeOff, freeShip], { ...basket, shippingAmount: 250 }, NOW)).toEqual({
      discount: threeOff,
      amount: 300,
      freeShipping: false,
    });
  });

  it('skips a discount that would save nothing (free shipping on a free-shipping cart)', () => {
    const freeShip = auto('ship', { type: 'free_shipping', value: 0 });
    expect(bestAutomatic([freeShip], { ...basket, shippingAmount: 0 }, NOW)).toBeNull();
  });

  it('breaks ties in favour of the older discount, whatever the order given', () => {
    const older = auto('older', { type: 'fixed_amount', value: 260 }, 48);
    const newer = auto('newer', { value: 1000 }, 1);
    expect(bestAutomatic([newer, older], basket, NOW)?.discount.id).toBe('older');
    expect(bestAutomatic([older, newer], basket, NOW)?.discount.id).toBe('older');
    const sameTime = [auto('b', { value: 1000 }), auto('a', { value: 1000 })];
    expect(bestAutomatic(sameTime, basket, NOW)?.discount.id).toBe('a');
  });

  it('skips once-per-customer discounts the customer already redeemed', () => {
    const big = auto('big', { value: 5000, oncePerCustomer: true });
    const small = auto('small', { value: 1000 });
    expect(bestAutomatic([big, small], basket, NOW)?.discount.id).toBe('big');
    expect(bestAutomatic([big, small], basket, NOW, new Set(['big']))?.discount.id).toBe('small');
    expect(bestAutomatic([big, small], { ...basket, customerHasRedeemed: true }, NOW)?.discount.id).toBe(
      'small',
    );
  });

  it('skips expired, exhausted and not-yet-started ones', () => {
    const candidates = [
      auto('expired', { value: 9000, endsAt: new Date(NOW.getTime() - 1) }),
      auto('exhausted', { value: 8000, usageLimit: 1, usageCount: 1 }),
      auto('future', { value: 7000, startsAt: new Date(NOW.getTime() + HOUR) }),
      auto('ok', { value: 500 }),
    ];
    expect(bestAutomatic(candidates, basket, NOW)).toEqual({
      discount: candidates[3],
      amount: 130,
      freeShipping: false,
    });
  });
});
