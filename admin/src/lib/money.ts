/**
 * Money in the dashboard is computed in integer minor units, never in floating point, as on the
 * server: order amounts arrive as JSON numbers rounded to the currency's decimals, catalogue prices as
 * decimal strings.
 */
const decimalsCache = new Map<string, number>();

/** Minor-unit digits of an ISO 4217 currency (USD 2, JPY 0, BHD 3). */
export function currencyDecimals(currency: string): number {
  let digits = decimalsCache.get(currency);
  if (digits === undefined) {
    try {
      digits =
        new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
          .maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    decimalsCache.set(currency, digits);
  }
  return digits;
}

/** 19.99 (an API order amount) → 1999. */
export function numberToMinor(amount: number, decimals: number): number {
  return Math.round(amount * 10 ** decimals);
}

const DECIMAL = /^(\d{1,13})(?:\.(\d+))?$/;

/** "19.99" → 1999; undefined when the text is not a plain non-negative amount with at most `decimals` places. */
export function parseMinor(text: string, decimals: number): number | undefined {
  const match = DECIMAL.exec(text.trim());
  if (!match) return undefined;
  const [, whole = '0', fraction = ''] = match;
  const trimmed = fraction.replace(/0+$/, '');
  if (trimmed.length > decimals) return undefined;
  return Number(whole) * 10 ** decimals + Number(trimmed.padEnd(decimals, '0') || '0');
}

/** 1999 → "19.99". */
export function minorToDecimal(minor: number, decimals: number): string {
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = decimals > 0 ? `.${digits.slice(digits.length - decimals)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/** 1999 → "$19.99" in the currency's own notation. */
export function formatMinor(minor: number, currency: string): string {
  const decimals = currencyDecimals(currency);
  return formatMoney(Number(minorToDecimal(minor, decimals)), currency);
}

/** 19.99 → "$19.99". */
export function formatMoney(amount: number | string, currency: string): string {
  const value = typeof amount === 'string' ? Number(amount) : amount;
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(value);
  } catch {
    return `${value.toFixed(2)} ${currency}`;
  }
}

/** A signed difference: "+$5.00", "−$2.50", "$0.00". */
export function formatSignedMinor(minor: number, currency: string): string {
  if (minor === 0) return formatMinor(0, currency);
  return `${minor > 0 ? '+' : '−'}${formatMinor(Math.abs(minor), currency)}`;
}

/** The currencies a store can be created with or switched to from the dashboard (any ISO 4217 code through the API). */
export const CURRENCIES = [
  'USD',
  'EUR',
  'GBP',
  'CAD',
  'AUD',
  'JPY',
  'CHF',
  'SEK',
  'NOK',
  'DKK',
  'PLN',
  'INR',
  'BRL',
  'MXN',
];
