import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../lib/money';
import { describeDiscount } from './discount-text';

describe('describeDiscount', () => {
  it.each([
    [{ type: 'percentage', value: '12.5' }, '12.5% off'],
    [{ type: 'percentage', value: '100' }, '100% off'],
    [{ type: 'fixed_amount', value: '5.00' }, `${formatMoney(5, 'USD')} off`],
    [{ type: 'fixed_amount', value: '1200' }, `${formatMoney(1200, 'JPY')} off`],
    [{ type: 'free_shipping', value: '0' }, 'Free shipping'],
  ] as const)('%j → %s', (discount, text) => {
    expect(describeDiscount(discount, discount.value === '1200' ? 'JPY' : 'USD')).toBe(text);
  });
});
