import { Type } from 'typebox';
import { MAX_AMOUNT, MoneyFormatError, toDecimalString, toMinorUnits } from '../money.js';
import { invalidRequest } from './errors.js';
import { ERROR_HINT } from './validation-messages.js';

const AMOUNT_HINT = 'must be an amount such as 19.99';

const DESCRIPTION = `Decimal amount, e.g. "19.99"; at most ${MAX_AMOUNT.toLocaleString('en-US')} minor units of the store currency (100,000,000,000.00 with two decimals)`;

/**
 * Requests accept a decimal string ("19.99") or a number; responses use their own type. The schema
 * bounds the digits; parseMoney applies the exact bound, which depends on the currency's decimals.
 */
export const moneyInput = (description = DESCRIPTION) =>
  Type.Union(
    [Type.String({ pattern: '^\\d{1,14}(\\.\\d+)?$' }), Type.Number({ minimum: 0, maximum: MAX_AMOUNT })],
    { description, [ERROR_HINT]: AMOUNT_HINT },
  );

export const MoneyInput = moneyInput();

/** A request's decimal amount → minor units of the currency (at most MAX_AMOUNT), or 400 naming the field. */
export function parseMoney(value: string | number, field: string, decimals: number): number {
  let minor: number;
  try {
    minor = toMinorUnits(value, decimals);
  } catch (error) {
    if (error instanceof MoneyFormatError)
      throw invalidRequest(`${field}: ${error.message}`, [{ field, message: error.message }]);
    throw error;
  }
  if (minor > MAX_AMOUNT) {
    const message = `must be at most ${toDecimalString(MAX_AMOUNT, decimals)}`;
    throw invalidRequest(`${field} ${message}`, [{ field, message }]);
  }
  return minor;
}
