import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ShippingRate, ShippingZone } from '../regions/index.js';
import { shippingOptionsOf, zoneOf } from './shipping-options.js';

const rate = (id: string, price: number, conditions: Partial<ShippingRate> = {}): ShippingRate => ({
  id,
  zoneId: 'z',
  name: id,
  price,
  minSubtotal: null,
  maxSubtotal: null,
  minWeightGrams: null,
  maxWeightGrams: null,
  freeAbove: null,
  deliveryDaysMin: null,
  deliveryDaysMax: null,
  ...conditions,
});
const zone = (id: string, countries: string[], rates: ShippingRate[] = []): ShippingZone => ({
  id,
  name: id,
  countries,
  rates,
});

describe('the zone of a country', () => {
  const zones = [zone('eu', ['DE', 'AT']), zone('world', ['*']), zone('us', ['US'])];
  it("is the zone listing it (any case), else the '*' zone, else none", () => {
    expect(zoneOf(zones, 'de')?.id).toBe('eu');
    expect(zoneOf(zones, 'US')?.id).toBe('us');
    expect(zoneOf(zones, 'JP')?.id).toBe('world');
    expect(zoneOf([zone('eu', ['DE'])], 'JP')).toBeNull();
  });
});

describe('shipping options', () => {
  const z = zone(
    'eu',
    ['DE'],
    [
      rate('express', 1500, { deliveryDaysMin: 1, deliveryDaysMax: 2 }),
      rate('standard', 500, { freeAbove: 5000 }),
      rate('heavy', 2500, { minWeightGrams: 10_000 }),
      rate('small', 300, { maxSubtotal: 2000, maxWeightGrams: 1000 }),
      rate('same', 500),
    ],
  );
  const names = (o: ReturnType<typeof shippingOptionsOf>) => o.map((x) => `${x.rate.id}:${x.amount}`);

  it('are the rates whose conditions hold (inclusive bounds), cheapest first, ties in zone order', () => {
    expect(
      names(shippingOptionsOf(z, { discountedSubtotal: 2000, weightGrams: 1000, freeShipping: false })),
    ).toEqual(['small:300', 'standard:500', 'same:500', 'express:1500']);
    expect(
      names(shippingOptionsOf(z, { discountedSubtotal: 5000, weightGrams: 10_000, freeShipping: false })),
    ).toEqual(['standard:0', 'same:500', 'express:1500', 'heavy:2500']);
  });

  it('cost nothing with a free-shipping discount', () => {
    const options = shippingOptionsOf(z, { discountedSubtotal: 100, weightGrams: 0, freeShipping: true });
    expect(options.every((o) => o.amount === 0)).toBe(true);
  });

  it('are always sorted by amount and each is a rate whose conditions hold', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 50_000 }),
        fc.boolean(),
        (discountedSubtotal, weightGrams, freeShipping) => {
          const options = shippingOptionsOf(z, { discountedSubtotal, weightGrams, freeShipping });
          for (let i = 1; i < options.length; i++)
            expect(options[i - 1]?.amount).toBeLessThanOrEqual(options[i]?.amount ?? 0);
          for (const o of options) expect(o.amount === 0 || o.amount === o.rate.price).toBe(true);
        },
      ),
    );
  });
});
