import { invalidRequest } from '../../platform/http/errors.js';
import { parseMoney } from '../../platform/http/money-input.js';
import { MoneyFormatError, toMinorUnits } from '../../platform/money.js';
import type { DiscountType } from './evaluate.js';

const invalid = (field: string, message: string) =>
  invalidRequest(`${field} ${message}`, [{ field, message }]);

/**
 * The stored `value` of a discount type: hundredths of a percent for percentage (above 0, at most
 * 100 %), minor units for fixed_amount (above 0), 0 for free_shipping.
 */
export function parseValue(type: DiscountType, value: string | number | undefined, decimals: number): number {
  if (type === 'free_shipping') {
    if (value === undefined) return 0;
    if (parseMoney(value, 'value', 0) !== 0) throw invalid('value', 'must be 0 for a free_shipping discount');
    return 0;
  }
  if (value === undefined) throw invalid('value', `is required for a ${type} discount`);
  if (type === 'percentage') {
    let hundredths: number;
    try {
      hundredths = toMinorUnits(value, 2);
    } catch (error) {
      if (error instanceof MoneyFormatError)
        throw invalid('value', 'must be a percentage with at most 2 decimal places');
      throw error;
    }
    if (hundredths <= 0 || hundredths > 10_000)
      throw invalid('value', 'must be a percentage above 0 and at most 100');
    return hundredths;
  }
  const minor = parseMoney(value, 'value', decimals);
  if (minor <= 0) throw invalid('value', 'must be an amount above 0');
  return minor;
}

/** The window must end after it starts. */
export function checkWindow(startsAt: Date, endsAt: Date | null): void {
  if (endsAt !== null && endsAt.getTime() <= startsAt.getTime()) {
    throw invalid('ends_at', 'must be after starts_at');
  }
}

/** An unknown product or category id inside the body is a 400 naming the list. */
export function checkKnownIds(
  field: 'product_ids' | 'category_ids',
  ids: string[],
  known: Set<string>,
): void {
  const missing = ids.filter((id) => !known.has(id));
  if (missing.length > 0) {
    throw invalidRequest(`${field} names unknown id(s): ${missing.join(', ')}`, [
      { field, message: `unknown id: ${missing.join(', ')}` },
    ]);
  }
}
