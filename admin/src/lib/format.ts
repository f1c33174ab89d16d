/** Dates and labels as the dashboard shows them. */
import { formatZoned } from './zoned-time';

/**
 * The signed-in store's time zone (session.tsx sets it before the pages render): every moment the
 * dashboard shows is in it and names it, whatever the browser's zone, so two people of one store
 * read the same time. Unset (the sign-in page), the browser's own zone.
 */
let displayZone: string | undefined;

export function setDisplayTimeZone(zone: string | undefined): void {
  displayZone = zone;
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  if (displayZone) return formatZoned(iso, displayZone);
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  // A calendar day (YYYY-MM-DD, as analytics periods are, already in the store's zone) is that day;
  // a moment is the day it falls on in the store's zone.
  const day = iso.length === 10;
  const date = new Date(day ? `${iso}T00:00:00` : iso);
  if (Number.isNaN(date.getTime())) return iso;
  const timeZone = day ? undefined : displayZone;
  return date.toLocaleDateString(undefined, { dateStyle: 'medium', ...(timeZone ? { timeZone } : {}) });
}

/** "partially_paid" → "Partially paid". */
export function humanise(value: string): string {
  const text = value.replace(/[_.]/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function customerName(c: {
  first_name: string | null;
  last_name: string | null;
  email: string;
}): string {
  const name = [c.first_name, c.last_name].filter(Boolean).join(' ');
  return name || c.email;
}

export function formatPercent(fraction: number): string {
  return `${fraction > 0 ? '+' : ''}${(fraction * 100).toFixed(1)}%`;
}

/**
 * "VAT 19 %", "incl. VAT 19 %": a tax rate as the settings and an order's tax lines name it (the
 * shop says the same), "incl." when the prices contain it.
 */
export function taxLabel(name: string, rate: string | number, included = false): string {
  return `${included ? 'incl. ' : ''}${name} ${rate} %`;
}

/** JSON text indented for reading; undefined when the text is not JSON. */
export function prettyJson(text: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return undefined;
  }
}
