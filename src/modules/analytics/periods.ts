/**
 * Calendar arithmetic on local dates (`YYYY-MM-DD` strings) for the analytics report: ranges,
 * previous periods, day/week/month buckets and the rollup ranges a period is read from. Pure: no
 * clock (today is passed in) and no time zone (dates are already local to the store).
 */
import type { ErrorDetail } from '../../platform/http/errors.js';

export type Interval = 'day' | 'week' | 'month';
export const INTERVALS: readonly Interval[] = ['day', 'week', 'month'];

/** Inclusive local dates. */
export interface DateRange {
  from: string;
  to: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** The longest range: `to` must come before the same day five years after `from`. */
export const MAX_YEARS = 5;
export const DEFAULT_DAYS = 30;

/*
 * Days since 1970-01-01 and back, by integer arithmetic on the proleptic Gregorian calendar
 * (H. Hinnant's days_from_civil / civil_from_days): a year of time series costs no Date objects.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n));

export function dateOf(dayNo: number): string {
  const z = dayNo + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${two(month)}-${two(day)}`;
}

/** Days since 1970-01-01, or undefined for text that is not a calendar date of the years 1000–9999. */
export function dayNumber(date: string): number | undefined {
  const match = DATE.exec(date);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1000 || month < 1 || month > 12 || day < 1) return undefined;
  const n = daysFromCivil(year, month, day);
  return dateOf(n) === date ? n : undefined;
}

function mustDayNumber(date: string): number {
  const n = dayNumber(date);
  if (n === undefined) throw new Error(`not a date: ${date}`);
  return n;
}

export const addDays = (date: string, days: number) => dateOf(mustDayNumber(date) + days);

/** Days from `from` to `to`, both included. */
export const lengthInDays = ({ from, to }: DateRange) => mustDayNumber(to) - mustDayNumber(from) + 1;

/** The same day `years` later (29 February becomes 1 March). */
function addYears(date: string, years: number): string {
  const [year, month, day] = [Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10))];
  return dateOf(daysFromCivil(year + years, month, 1) + day - 1);
}

/** Building an Intl formatter costs about a millisecond: one per time zone, kept. */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Today's date in the time zone (the store's), e.g. "2026-11-23". */
export function todayIn(timeZone: string, now = new Date()): string {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    if (formatters.size > 1000) formatters.clear();
    formatters.set(timeZone, format);
  }
  const parts = format.formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

export type RangeResult = { ok: true; range: DateRange } | { ok: false; details: ErrorDetail[] };

/**
 * The requested range: `to` defaults to today, `from` to 29 days before `to` (30 days in all).
 * Refused: dates that do not exist, `to` before `from`, and ranges of more than five years.
 */
export function resolveRange(query: { from?: string; to?: string }, today: string): RangeResult {
  const details: ErrorDetail[] = [];
  for (const field of ['from', 'to'] as const) {
    const value = query[field];
    if (value !== undefined && dayNumber(value) === undefined)
      details.push({ field, message: 'must be a calendar date YYYY-MM-DD' });
  }
  if (details.length) return { ok: false, details };
  const to = query.to ?? today;
  const from = query.from ?? addDays(to, -(DEFAULT_DAYS - 1));
  if (mustDayNumber(to) < mustDayNumber(from))
    return { ok: false, details: [{ field: 'to', message: 'must not be before from' }] };
  if (mustDayNumber(to) >= mustDayNumber(addYears(from, MAX_YEARS)))
    return { ok: false, details: [{ field: 'to', message: `the range must not exceed ${MAX_YEARS} years` }] };
  return { ok: true, range: { from, to } };
}

/** The same number of days immediately before `range`. */
export function previousPeriod(range: DateRange): DateRange {
  const days = lengthInDays(range);
  return { from: addDays(range.from, -days), to: addDays(range.from, -1) };
}

/** Monday of the ISO week of `date`. */
export function weekStart(date: string): string {
  const n = mustDayNumber(date);
  // 1970-01-01 was a Thursday: (n + 3) mod 7 is 0 on Mondays.
  return dateOf(n - ((((n + 3) % 7) + 7) % 7));
}

export const monthStart = (date: string) => `${date.slice(0, 7)}-01`;

function nextMonthStart(date: string): string {
  const [y, m] = [Number(date.slice(0, 4)), Number(date.slice(5, 7))];
  return m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
}

/** The first day of the calendar period of `interval` that holds `date`. */
export function periodStart(date: string, interval: Interval): string {
  if (interval === 'day') return date;
  return interval === 'week' ? weekStart(date) : monthStart(date);
}

/**
 * The start of every period that meets the range, in order: each day; each ISO week (Mondays); each
 * calendar month. The first and last may begin before `from` or end after `to` (partial periods).
 */
export function periodStarts(range: DateRange, interval: Interval): string[] {
  const starts: string[] = [];
  const end = mustDayNumber(range.to);
  if (interval === 'month') {
    for (
      let current = monthStart(range.from);
      mustDayNumber(current) <= end;
      current = nextMonthStart(current)
    )
      starts.push(current);
    return starts;
  }
  const step = interval === 'day' ? 1 : 7;
  for (let n = mustDayNumber(periodStart(range.from, interval)); n <= end; n += step) starts.push(dateOf(n));
  return starts;
}

export type Grain = 'day' | 'week' | 'month';

/** Rollup rows of `grain` whose period starts in [from, until) (until exclusive). */
export interface GrainRange {
  grain: Grain;
  from: string;
  until: string;
}

/** [from, until) as whole ISO weeks inside it plus the days around them. */
function weeksAndDays(from: string, until: string): GrainRange[] {
  const firstMonday =
    mustDayNumber(from) === mustDayNumber(weekStart(from)) ? from : addDays(weekStart(from), 7);
  const lastMonday = weekStart(until);
  if (mustDayNumber(firstMonday) >= mustDayNumber(lastMonday)) return [{ grain: 'day', from, until }];
  return [
    { grain: 'day', from, until: firstMonday },
    { grain: 'week', from: firstMonday, until: lastMonday },
    { grain: 'day', from: lastMonday, until },
  ];
}

/**
 * Disjoint rollup ranges that together cover exactly the days of `range`: whole calendar months,
 * then whole ISO weeks, then single days. A year is read as 11–12 months, a few weeks, a few days.
 */
export function grainRanges(range: DateRange): GrainRange[] {
  const until = addDays(range.to, 1);
  const firstMonth = range.from === monthStart(range.from) ? range.from : nextMonthStart(range.from);
  const lastMonth = monthStart(until);
  const pieces =
    mustDayNumber(firstMonth) < mustDayNumber(lastMonth)
      ? [
          ...weeksAndDays(range.from, firstMonth),
          { grain: 'month' as const, from: firstMonth, until: lastMonth },
          ...weeksAndDays(lastMonth, until),
        ]
      : weeksAndDays(range.from, until);
  return pieces.filter((p) => mustDayNumber(p.from) < mustDayNumber(p.until));
}
