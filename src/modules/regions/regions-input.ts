/** The regions module's input rules: country lists, rates' conditions, tax rates and subdivisions. */
import { invalidRequest } from '../../platform/http/errors.js';
import { parseMoney } from '../../platform/http/money-input.js';
import { isCountryCode, subdivisionOf } from '../../platform/iso3166.js';
import { MoneyFormatError, toMinorUnits } from '../../platform/money.js';
import type { RateInput } from './regions.schemas.js';

export const invalid = (field: string, message: string) =>
  invalidRequest(`${field} ${message}`, [{ field, message }]);

/** The code of the rest of the world: the zone of every country no other zone names. */
export const REST_OF_WORLD = '*';

/**
 * A zone's countries as stored: upper case (the codes are accepted in any case, as addresses'
 * are), each an assigned ISO 3166-1 alpha-2 code, none twice; or `*` alone.
 */
export function parseCountries(countries: readonly string[]): string[] {
  const codes = countries.map((c) => c.toUpperCase());
  if (codes.includes(REST_OF_WORLD) && codes.length > 1) {
    throw invalid(
      'countries',
      '"*" (the rest of the world) stands alone: it cannot be listed with countries',
    );
  }
  const seen = new Set<string>();
  codes.forEach((code, i) => {
    if (code !== REST_OF_WORLD && !isCountryCode(code))
      throw invalid(`countries.${i}`, `"${code}" is not an ISO 3166-1 alpha-2 country code`);
    if (seen.has(code)) throw invalid(`countries.${i}`, `"${code}" is listed twice`);
    seen.add(code);
  });
  return codes;
}

/** A rate's values in minor units and grams, as the table keeps them (id and position apart). */
export interface RateValues {
  name: string;
  price: number;
  min_subtotal: number | null;
  max_subtotal: number | null;
  min_weight_grams: number | null;
  max_weight_grams: number | null;
  free_above: number | null;
  delivery_days_min: number | null;
  delivery_days_max: number | null;
}

/** A range's upper bound below its lower one is a 400 naming the upper bound's field. */
function checkRange(field: string, min: number | null, max: number | null, minName: string): void {
  if (min !== null && max !== null && max < min) throw invalid(field, `must be at least ${minName}`);
}

/** One rate of a request (`rates.<i>`): amounts parsed with the store currency's decimals. */
export function parseRate(rate: RateInput, i: number, decimals: number): RateValues {
  const field = (name: string) => `rates.${i}.${name}`;
  const money = (value: string | number | null | undefined, name: string) =>
    value == null ? null : parseMoney(value, field(name), decimals);
  const values: RateValues = {
    name: rate.name.trim(),
    price: parseMoney(rate.price, field('price'), decimals),
    min_subtotal: money(rate.min_subtotal, 'min_subtotal'),
    max_subtotal: money(rate.max_subtotal, 'max_subtotal'),
    min_weight_grams: rate.min_weight_grams ?? null,
    max_weight_grams: rate.max_weight_grams ?? null,
    free_above: money(rate.free_above, 'free_above'),
    delivery_days_min: rate.delivery_days_min ?? null,
    delivery_days_max: rate.delivery_days_max ?? null,
  };
  checkRange(field('max_subtotal'), values.min_subtotal, values.max_subtotal, 'min_subtotal');
  checkRange(field('max_weight_grams'), values.min_weight_grams, values.max_weight_grams, 'min_weight_grams');
  checkRange(
    field('delivery_days_max'),
    values.delivery_days_min,
    values.delivery_days_max,
    'delivery_days_min',
  );
  return values;
}

/**
 * A tax rate as a percentage with at most three decimals ("19", "7.25", 0.5) → thousandths of a
 * percent (19000, 7250, 500), from 0 to 100 %.
 */
export function parseTaxRate(rate: string | number): number {
  const message = 'must be a percentage from 0 to 100 with at most 3 decimals, such as "7.25"';
  let millipercent: number;
  try {
    millipercent = toMinorUnits(rate, 3);
  } catch (error) {
    if (error instanceof MoneyFormatError) throw invalid('rate', message);
    throw error;
  }
  if (millipercent > 100_000) throw invalid('rate', message);
  return millipercent;
}

/**
 * A tax region's place: the country upper case, and its region as the full ISO 3166-2 code. The
 * region is accepted as the code ("US-CA") or as the part after the hyphen ("CA"), in any case, as
 * addresses write it; a subdivision of another country, or none at all ("US-XX"), is a 400.
 */
export function parsePlace(
  country: string,
  region: string | null,
): { country: string; region: string | null } {
  const code = country.toUpperCase();
  if (!isCountryCode(code))
    throw invalid('country', `"${country}" is not an ISO 3166-1 alpha-2 country code`);
  if (region === null) return { country: code, region: null };
  const subdivision = subdivisionOf(code, region);
  if (!subdivision) throw invalid('region', `"${region}" is not an ISO 3166-2 subdivision of ${code}`);
  return { country: code, region: subdivision };
}
