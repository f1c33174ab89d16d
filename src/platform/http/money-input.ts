import { Type } from 'typebox';
import { MoneyFormatError, toMinorUnits } from '../money.js';
import { invalidRequest } from './errors.js';

/** Requests accept a decimal string ("19.99") or a number; responses use their own type. */
export const moneyInput = (description = 'Decimal amount, e.g. "19.99"') =>
  Type.Union([Type.String({ pattern: '^\\d{1,15}(\\.\\d+)?$' }), Type.Number({ minimum: 0 })], {
    description,
  });

export const MoneyInput = moneyInput();

/** A request's decimal amount → minor units of the currency, or 400 naming the field. */
export function parseMoney(value: string | number, field: string, decimals: number): number {
  try {
    return toMinorUnits(value, decimals);
  } catch (error) {
    if (error instanceof MoneyFormatError)
      throw invalidRequest(`${field}: ${error.message}`, [{ field, message: error.message }]);
    throw error;
  }
}
