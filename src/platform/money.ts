/**
 * Money is an integer count of the currency's minor units everywhere inside Emporium; these are the
 * only conversions, done on strings and integers so no floating-point rounding ever touches it.
 */
const decimalsCache = new Map<string, number>();

/**
 * The largest amount Emporium handles, in minor units: 10^13 (100,000,000,000.00 in a two-decimal
 * currency, ¥10,000,000,000,000, 10,000,000,000.000 BHD). Every catalogue price, store and discount
 * amount and every amount of an order (subtotal, total, lines) is at most this. Why this bound:
 * order amounts are answered as JSON numbers, and a decimal of at most 15 significant digits survives
 * the round trip through a double exactly (DBL_DIG = 15), so any amount of at most 14 digits of
 * minor units, positive or negative (a balance due), prints back to the cent. Sums stay far below
 * Number.MAX_SAFE_INTEGER (≈ 9.007 × 10^15), and so do a tax or discount computed on them in BigInt.
 */
export const MAX_AMOUNT = 10 ** 13;

let currencyCodes: ReadonlySet<string> | undefined;

/** An ISO 4217 code the runtime knows (Intl.supportedValuesOf): `USD`, `EUR`, `JPY` — not `QQQ`. */
export function isCurrencyCode(code: string): boolean {
  currencyCodes ??= new Set(Intl.supportedValuesOf('currency'));
  return currencyCodes.has(code);
}

/** Minor-unit digits of an ISO 4217 currency (USD 2, JPY 0, BHD 3). */
export function currencyDecimals(currency: string): number {
  let digits = decimalsCache.get(currency);
  if (digits === undefined) {
    digits =
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2;
    decimalsCache.set(currency, digits);
  }
  return digits;
}

const DECIMAL = /^(\d{1,15})(?:\.(\d+))?$/;

export class MoneyFormatError extends Error {}

/**
 * "19.99" or 19.99 → 1999 (for 2 decimals). More fractional digits than the currency has, negative
 * amounts, exponents and anything that is not a plain decimal are refused.
 */
export function toMinorUnits(amount: string | number, decimals: number): number {
  const text = typeof amount === 'number' ? String(amount) : amount.trim();
  const match = DECIMAL.exec(text);
  if (!match) throw new MoneyFormatError(`"${amount}" is not a decimal amount`);
  const [, whole = '0', fraction = ''] = match;
  const trimmed = fraction.replace(/0+$/, '');
  if (trimmed.length > decimals) {
    throw new MoneyFormatError(`"${amount}" has more than ${decimals} decimal places`);
  }
  const minor = Number(whole) * 10 ** decimals + Number(trimmed.padEnd(decimals, '0') || '0');
  if (!Number.isSafeInteger(minor)) throw new MoneyFormatError(`"${amount}" is too large`);
  return minor;
}

/** 1999 → "19.99": catalogue prices are decimal strings. */
export function toDecimalString(minor: number, decimals: number): string {
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = decimals > 0 ? `.${digits.slice(digits.length - decimals)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/** 10^0 … 10^22: every one a double exactly. */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, n) => Number(`1e${n}`));

/**
 * 1999 → 19.99: order amounts are JSON numbers rounded to the currency's decimals. The number is the
 * double nearest the decimal `toDecimalString` writes, as `Number()` of that string is: a division of
 * two exact doubles is rounded correctly too (IEEE 754), and the quotient of the integer amount by
 * 10^decimals is that decimal exactly. Order lists convert eight amounts per order; the string round
 * trip cost more than the rest of the list item.
 */
export function toDecimalNumber(minor: number, decimals: number): number {
  const power = POWERS_OF_TEN[decimals];
  if (power !== undefined && Number.isSafeInteger(minor)) return minor / power;
  return Number(toDecimalString(minor, decimals));
}
