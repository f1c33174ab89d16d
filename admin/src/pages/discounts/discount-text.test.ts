import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../lib/money';
import { describeDiscount, fromLocalInput, toLocalInput } from './discount-text';

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

describe('datetime-local inputs', () => {
  it.each([null, ''])('%j is an empty input and back', (value) => {
    expect(toLocalInput(value)).toBe('');
    expect(fromLocalInput(value ?? '')).toBeNull();
  });

  it('shows local time to the minute', () => {
    const date = new Date(2026, 0, 5, 7, 3, 45);
    expect(toLocalInput(date.toISOString())).toBe('2026-01-05T07:03');
  });

  it.each(['2026-11-22T10:15:00.000Z', '2026-01-01T00:00:00.000Z', '2026-06-30T23:59:00.000Z'])(
    '%s comes back from its input unchanged',
    (iso) => {
      expect(fromLocalInput(toLocalInput(iso))).toBe(iso);
    },
  );

  it('drops seconds', () => {
    expect(fromLocalInput(toLocalInput('2026-11-22T10:15:42.123Z'))).toBe('2026-11-22T10:15:00.000Z');
  });
});
