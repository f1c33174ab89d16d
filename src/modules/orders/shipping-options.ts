import type { ShippingRate, ShippingZone } from '../regions/index.js';

/** Pure shipping arithmetic of contract §12 (no I/O): which zone, which rates, what each costs. */

export interface ShippingOption {
  rate: ShippingRate;
  /** Minor units: the rate's price, or 0 at/above its `free_above` or with a free-shipping discount. */
  amount: number;
}

/** The zone that lists `country`, else the `*` zone; null when the store does not ship there. */
export function zoneOf(zones: readonly ShippingZone[], country: string): ShippingZone | null {
  const code = country.toUpperCase();
  return (
    zones.find((z) => z.countries.includes(code)) ?? zones.find((z) => z.countries.includes('*')) ?? null
  );
}

const within = (value: number, min: number | null, max: number | null) =>
  (min === null || value >= min) && (max === null || value <= max);

/**
 * The options of a zone for a cart: its rates whose conditions hold for the discounted subtotal
 * and the total weight (bounds inclusive), each with what it costs, cheapest first (equal amounts
 * keep the zone's order: Array.prototype.sort is stable).
 */
export function shippingOptionsOf(
  zone: ShippingZone,
  cart: { discountedSubtotal: number; weightGrams: number; freeShipping: boolean },
): ShippingOption[] {
  return zone.rates
    .filter(
      (r) =>
        within(cart.discountedSubtotal, r.minSubtotal, r.maxSubtotal) &&
        within(cart.weightGrams, r.minWeightGrams, r.maxWeightGrams),
    )
    .map((rate) => ({
      rate,
      amount:
        cart.freeShipping || (rate.freeAbove !== null && cart.discountedSubtotal >= rate.freeAbove)
          ? 0
          : rate.price,
    }))
    .sort((a, b) => a.amount - b.amount);
}
