import pg from 'pg';

type Parse = (text: string) => unknown;

const ZERO = 48;
const isDigit = (code: number) => code >= ZERO && code <= ZERO + 9;
/** The number written by `length` ASCII digits from `at`, or -1 if one of them is not a digit. */
function digits(text: string, at: number, length: number): number {
  let n = 0;
  for (let i = at; i < at + length; i++) {
    const code = text.charCodeAt(i);
    if (!isDigit(code)) return -1;
    n = n * 10 + code - ZERO;
  }
  return n;
}

/**
 * A `timestamptz` as PostgreSQL writes it in a UTC session, `2026-11-26 14:35:19.393123+00`, read
 * without a regular expression; anything else (another time zone, a year before 100 or after 9999,
 * BC, infinity) goes to `fallback`, pg's own parser. A list page reads two timestamps per row and pg's
 * parser runs three regular expressions on each (`parseDate` was 4–8% of a merchant list's CPU). The
 * Date is the one pg's parser makes, to the millisecond: the fraction's milliseconds are computed
 * the same way (`1000 * parseFloat('.ffffff')`, then truncated by Date.UTC).
 */
export function utcTimestampParser(fallback: Parse): Parse {
  return (text) => {
    const length = text.length;
    // `YYYY-MM-DD HH:MM:SS+00` is 22 characters; a fraction adds a dot and 1 to 6 digits.
    if (
      length < 22 ||
      length > 29 ||
      text.charCodeAt(length - 3) !== 43 /* + */ ||
      text.charCodeAt(length - 2) !== ZERO ||
      text.charCodeAt(length - 1) !== ZERO ||
      text.charCodeAt(4) !== 45 /* - */ ||
      text.charCodeAt(7) !== 45 ||
      text.charCodeAt(10) !== 32 /* space */ ||
      text.charCodeAt(13) !== 58 /* : */ ||
      text.charCodeAt(16) !== 58
    )
      return fallback(text);
    const year = digits(text, 0, 4);
    const month = digits(text, 5, 2);
    const day = digits(text, 8, 2);
    const hour = digits(text, 11, 2);
    const minute = digits(text, 14, 2);
    const second = digits(text, 17, 2);
    if (year < 100 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return fallback(text);
    let ms = 0;
    if (length > 22) {
      if (length < 24 || text.charCodeAt(19) !== 46 /* . */ || digits(text, 20, length - 23) < 0)
        return fallback(text);
      ms = 1000 * Number.parseFloat(text.slice(19, length - 3));
    }
    return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
  };
}

/** Installs the fast path in front of pg's `timestamptz` parser (once per process is enough; idempotent). */
export function parseTimestampsFast(): void {
  const current = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as Parse & { fast?: true };
  if (current.fast) return;
  const fast = Object.assign(utcTimestampParser(current), { fast: true as const });
  pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, fast);
}
