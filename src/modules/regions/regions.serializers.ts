import { toDecimalString } from '../../platform/money.js';
import type { TaxRegionRow } from './tax-regions.repository.js';
import type { RateRow, ZoneWithParts } from './zones.repository.js';

/** Thousandths of a percent → the percentage without trailing zeros: 7250 → "7.25", 19000 → "19". */
export function taxRateString(millipercent: number): string {
  return toDecimalString(millipercent, 3).replace(/\.?0+$/, '');
}

const moneyOrNull = (minor: number | null, decimals: number) =>
  minor === null ? null : toDecimalString(minor, decimals);

/** Merchant view (/api/v1) of a rate: snake_case, amounts as decimal strings of the store currency. */
export function rateForMerchant(row: RateRow, decimals: number) {
  return {
    id: row.id,
    name: row.name,
    price: toDecimalString(row.price, decimals),
    min_subtotal: moneyOrNull(row.min_subtotal, decimals),
    max_subtotal: moneyOrNull(row.max_subtotal, decimals),
    min_weight_grams: row.min_weight_grams,
    max_weight_grams: row.max_weight_grams,
    free_above: moneyOrNull(row.free_above, decimals),
    delivery_days_min: row.delivery_days_min,
    delivery_days_max: row.delivery_days_max,
  };
}

export function zoneForMerchant(row: ZoneWithParts, decimals: number) {
  return {
    id: row.id,
    name: row.name,
    countries: row.countries,
    rates: row.rates.map((r) => rateForMerchant(r, decimals)),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function taxRegionForMerchant(row: TaxRegionRow) {
  return {
    id: row.id,
    country: row.country,
    region: row.region,
    name: row.name,
    rate: taxRateString(row.rate_millipercent),
    shipping_taxable: row.shipping_taxable,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
