/** The overview's reporting periods: date ranges in the store's time zone and period-over-period change. */
import { formatPercent } from '../../lib/format';

export const RANGES = [
  { id: '7d', label: 'Last 7 days', days: 7, interval: 'day' },
  { id: '30d', label: 'Last 30 days', days: 30, interval: 'day' },
  { id: '90d', label: 'Last 90 days', days: 90, interval: 'week' },
  { id: '12m', label: 'Last 12 months', days: 365, interval: 'month' },
] as const;

/** The day `date` falls on in `timeZone`, as YYYY-MM-DD (UTC when the zone is unknown). */
export function isoDay(date: Date, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(date);
  } catch {
    return date.toISOString().slice(0, 10);
  }
}

/** The last `days` days up to today in the store's time zone, both ends included. */
export function rangeDates(days: number, timeZone: string, now: Date = new Date()) {
  const to = isoDay(now, timeZone);
  const start = new Date(`${to}T00:00:00Z`);
  start.setUTCDate(start.getUTCDate() - (days - 1));
  return { from: start.toISOString().slice(0, 10), to };
}

/** How a KPI moved since the previous period: "+12.5%", "new", "no change"… and which way. */
export function periodChange(
  current: number,
  previous: number,
): { text: string; tone: 'up' | 'down' | 'flat' } {
  if (previous === 0)
    return current === 0 ? { text: 'no change', tone: 'flat' } : { text: 'new', tone: 'up' };
  const ratio = (current - previous) / previous;
  if (Math.abs(ratio) < 0.0005) return { text: '0.0%', tone: 'flat' };
  return { text: formatPercent(ratio), tone: ratio > 0 ? 'up' : 'down' };
}
