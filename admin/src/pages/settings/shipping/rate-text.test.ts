import { describe, expect, it } from 'vitest';
import type { ShippingRate } from '../../../api/types';
import { describeRate, formatWeight } from './rate-text';

const NONE = {
  min_subtotal: null,
  max_subtotal: null,
  min_weight_grams: null,
  max_weight_grams: null,
  free_above: null,
  delivery_days_min: null,
  delivery_days_max: null,
};
const rate = (fields: Partial<ShippingRate>): ShippingRate =>
  ({ id: 'r', name: 'Standard', price: '4.90', ...NONE, ...fields }) as ShippingRate;

describe('describeRate', () => {
  it.each([
    [{}, 'Standard: $4.90'],
    [{ free_above: '50.00' }, 'Standard: $4.90, free from $50.00'],
    [{ min_subtotal: '10', max_subtotal: '100' }, 'Standard: $4.90, orders $10.00–$100.00'],
    [{ min_subtotal: '10' }, 'Standard: $4.90, orders from $10.00'],
    [{ max_weight_grams: 2000 }, 'Standard: $4.90, up to 2 kg'],
    [{ min_weight_grams: 500, max_weight_grams: 2500 }, 'Standard: $4.90, 500 g–2.5 kg'],
    [{ delivery_days_min: 2, delivery_days_max: 4 }, 'Standard: $4.90, 2–4 days'],
    [{ delivery_days_min: 1, delivery_days_max: 1 }, 'Standard: $4.90, 1 day'],
    [{ delivery_days_max: 1 }, 'Standard: $4.90, up to 1 day'],
    [{ delivery_days_min: 3, min_subtotal: null, free_above: null }, 'Standard: $4.90, from 3 days'],
  ])('%j → %s', (fields, text) => {
    expect(describeRate(rate(fields), 'USD')).toBe(text);
  });

  it('writes weights in grams under a kilo', () => {
    expect(formatWeight(0)).toBe('0 g');
    expect(formatWeight(999)).toBe('999 g');
    expect(formatWeight(1000)).toBe('1 kg');
  });
});
