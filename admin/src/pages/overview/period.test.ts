import { describe, expect, it } from 'vitest';
import { isoDay, periodChange, RANGES, rangeDates } from './period';

describe('isoDay: the day in the store time zone', () => {
  it.each([
    ['2026-11-22T23:30:00.000Z', 'UTC', '2026-11-22'],
    ['2026-11-22T23:30:00.000Z', 'Asia/Tokyo', '2026-11-23'],
    ['2026-11-22T03:30:00.000Z', 'America/New_York', '2026-11-21'],
    ['2026-12-31T23:59:59.999Z', 'Pacific/Kiritimati', '2027-01-01'],
    ['2026-11-22T23:30:00.000Z', 'Not/AZone', '2026-11-22'], // unknown zone: UTC
  ])('%s in %s is %s', (iso, zone, day) => {
    expect(isoDay(new Date(iso), zone)).toBe(day);
  });
});

describe('rangeDates: the last N days, today included', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');
  it.each([
    [7, 'UTC', { from: '2026-02-23', to: '2026-03-01' }],
    [30, 'UTC', { from: '2026-01-31', to: '2026-03-01' }],
    [90, 'UTC', { from: '2025-12-02', to: '2026-03-01' }],
    [365, 'UTC', { from: '2025-03-02', to: '2026-03-01' }],
    [1, 'UTC', { from: '2026-03-01', to: '2026-03-01' }],
    // Already 2 March in Kiritimati (UTC+14).
    [7, 'Pacific/Kiritimati', { from: '2026-02-24', to: '2026-03-02' }],
  ])('%i days in %s', (days, zone, range) => {
    expect(rangeDates(days, zone, now)).toEqual(range);
  });

  it('every range of the page spans its number of days', () => {
    for (const range of RANGES) {
      const { from, to } = rangeDates(range.days, 'Europe/Paris', now);
      expect((Date.parse(to) - Date.parse(from)) / 86_400_000 + 1).toBe(range.days);
    }
  });
});

describe('periodChange', () => {
  it.each([
    [0, 0, { text: 'no change', tone: 'flat' }],
    [10, 0, { text: 'new', tone: 'up' }],
    [150, 100, { text: '+50.0%', tone: 'up' }],
    [50, 100, { text: '-50.0%', tone: 'down' }],
    [0, 100, { text: '-100.0%', tone: 'down' }],
    [100.04, 100, { text: '0.0%', tone: 'flat' }], // under 0.05 %
    [100.06, 100, { text: '+0.1%', tone: 'up' }],
    [99.94, 100, { text: '-0.1%', tone: 'down' }],
  ])('%d after %d → %j', (current, previous, change) => {
    expect(periodChange(current, previous)).toEqual(change);
  });
});
