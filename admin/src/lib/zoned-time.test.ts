import { describe, expect, it } from 'vitest';
import { formatZoned, fromZonedInput, knownZone, toZonedInput } from './zoned-time';

describe('datetime-local inputs in the store time zone', () => {
  it.each([null, ''])('%j is an empty input and back', (value) => {
    expect(toZonedInput(value, 'Europe/Berlin')).toBe('');
    expect(fromZonedInput(value ?? '', 'Europe/Berlin')).toBeNull();
  });

  it.each([
    ['2026-11-22T10:15:00.000Z', 'Europe/Berlin', '2026-11-22T11:15'],
    ['2026-07-01T10:15:00.000Z', 'Europe/Berlin', '2026-07-01T12:15'],
    ['2026-01-01T03:30:00.000Z', 'America/New_York', '2025-12-31T22:30'],
    ['2026-06-30T23:59:00.000Z', 'Asia/Kolkata', '2026-07-01T05:29'],
    ['2026-03-10T12:00:00.000Z', 'UTC', '2026-03-10T12:00'],
  ])('%s shows in %s as %s, whatever the browser zone, and comes back unchanged', (iso, zone, input) => {
    expect(toZonedInput(iso, zone)).toBe(input);
    expect(fromZonedInput(input, zone)).toBe(iso);
  });

  it('reads a wall time on the day the clocks change with the offset of that time', () => {
    // Berlin moves from +01:00 to +02:00 at 02:00 local on 29 March 2026.
    expect(fromZonedInput('2026-03-29T01:30', 'Europe/Berlin')).toBe('2026-03-29T00:30:00.000Z');
    expect(fromZonedInput('2026-03-29T03:30', 'Europe/Berlin')).toBe('2026-03-29T01:30:00.000Z');
  });

  it('names the zone when it shows a date', () => {
    expect(formatZoned('2026-11-22T10:15:00.000Z', 'Asia/Tokyo')).toMatch(/(19|07):15.*(GMT\+9|JST)/);
  });

  it('reads an unknown zone as UTC', () => {
    expect(knownZone('Mars/Olympus')).toBe('UTC');
    expect(knownZone('Europe/Berlin')).toBe('Europe/Berlin');
  });
});
