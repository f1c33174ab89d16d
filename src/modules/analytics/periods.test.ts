import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  dateOf,
  dayNumber,
  grainRanges,
  lengthInDays,
  periodStart,
  periodStarts,
  previousPeriod,
  resolveRange,
  todayIn,
  weekStart,
} from './periods.js';

const date = fc
  .integer({ min: dayNumber('2000-01-01') as number, max: dayNumber('2040-12-31') as number })
  .map(dateOf);

describe('dates', () => {
  it.each([
    ['2026-02-28', true],
    ['2026-02-29', false],
    ['2024-02-29', true],
    ['2026-13-01', false],
    ['2026-04-31', false],
    ['2026-1-01', false],
    ['20260101', false],
    ['0050-01-01', false],
  ])('%s is a date: %s', (text, ok) => {
    expect(dayNumber(text) !== undefined).toBe(ok);
  });

  it('day numbers agree with the JavaScript calendar, both ways', () => {
    const years1000to9999 = fc.integer({ min: -354_285, max: 2_932_896 });
    fc.assert(
      fc.property(years1000to9999, (n) => {
        const text = new Date(n * 86_400_000).toISOString().slice(0, 10);
        expect(dateOf(n)).toBe(text);
        expect(dayNumber(text)).toBe(n);
      }),
    );
  });

  it.each([
    ['2026-11-23', '2026-11-23'], // a Monday
    ['2026-11-29', '2026-11-23'], // Sunday belongs to the week that began on Monday
    ['2026-01-01', '2025-12-29'], // ISO weeks cross years
    ['2024-03-03', '2024-02-26'],
  ])('the ISO week of %s starts on %s', (day, monday) => {
    expect(weekStart(day)).toBe(monday);
  });

  it('today follows the store timezone across midnight', () => {
    const instant = new Date('2026-03-08T04:30:00Z'); // 23:30 on the 7th in New York (EST, UTC-5)
    expect(todayIn('America/New_York', instant)).toBe('2026-03-07');
    expect(todayIn('Europe/Berlin', instant)).toBe('2026-03-08');
    expect(todayIn('UTC', instant)).toBe('2026-03-08');
    expect(todayIn('Pacific/Kiritimati', new Date('2026-12-31T10:00:00Z'))).toBe('2027-01-01');
  });
});

describe('resolveRange', () => {
  const today = '2026-11-23';
  it.each([
    [{}, { from: '2026-10-25', to: '2026-11-23' }],
    [{ to: '2026-03-31' }, { from: '2026-03-02', to: '2026-03-31' }],
    [{ from: '2026-11-01' }, { from: '2026-11-01', to: '2026-11-23' }],
    [
      { from: '2026-05-05', to: '2026-05-05' },
      { from: '2026-05-05', to: '2026-05-05' },
    ],
    [
      { from: '2021-01-01', to: '2025-12-31' },
      { from: '2021-01-01', to: '2025-12-31' },
    ],
  ])('%o → %o', (query, range) => {
    expect(resolveRange(query, today)).toEqual({ ok: true, range });
  });

  it.each([
    [{ from: '2026-02-30' }, 'from'],
    [{ to: '2026-13-01' }, 'to'],
    [{ from: '2026-05-06', to: '2026-05-05' }, 'to'],
    [{ from: '2021-01-01', to: '2026-01-01' }, 'to'],
    [{ from: '2026-12-01' }, 'to'],
  ])('%o is refused on %s', (query, field) => {
    const result = resolveRange(query, today);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.details[0]?.field).toBe(field);
  });

  it('the previous period has the same length and ends the day before', () => {
    fc.assert(
      fc.property(date, fc.integer({ min: 1, max: 1826 }), (from, days) => {
        const range = { from, to: addDays(from, days - 1) };
        const previous = previousPeriod(range);
        expect(lengthInDays(previous)).toBe(days);
        expect(addDays(previous.to, 1)).toBe(from);
      }),
    );
  });
});

describe('periods', () => {
  it.each([
    ['day', ['2026-11-27', '2026-11-28', '2026-11-29', '2026-11-30', '2026-12-01']],
    ['week', ['2026-11-23', '2026-11-30']],
    ['month', ['2026-11-01', '2026-12-01']],
  ] as const)('%s periods of 2026-11-27..2026-12-01', (interval, starts) => {
    expect(periodStarts({ from: '2026-11-27', to: '2026-12-01' }, interval)).toEqual(starts);
  });

  it('every day of the range falls in exactly one listed period', () => {
    fc.assert(
      fc.property(
        date,
        fc.integer({ min: 1, max: 400 }),
        fc.constantFrom('day', 'week', 'month'),
        (from, days, interval) => {
          const range = { from, to: addDays(from, days - 1) };
          const starts = periodStarts(range, interval);
          expect(new Set(starts).size).toBe(starts.length);
          for (let i = 0; i < days; i++) expect(starts).toContain(periodStart(addDays(from, i), interval));
          expect(starts[0]).toBe(periodStart(from, interval));
          expect(starts.at(-1)).toBe(periodStart(range.to, interval));
        },
      ),
    );
  });
});

describe('grainRanges', () => {
  /** The days a rollup row of this grain and period covers. */
  const daysOf = (grain: string, period: string) =>
    grain === 'day'
      ? 1
      : grain === 'week'
        ? 7
        : lengthInDays({ from: period, to: addDays(periodStart(addDays(period, 31), 'month'), -1) });

  it('a year is read as months, a few weeks and a few days', () => {
    expect(grainRanges({ from: '2025-11-23', to: '2026-11-22' })).toEqual([
      { grain: 'day', from: '2025-11-23', until: '2025-11-24' },
      { grain: 'week', from: '2025-11-24', until: '2025-12-01' },
      { grain: 'month', from: '2025-12-01', until: '2026-11-01' },
      { grain: 'day', from: '2026-11-01', until: '2026-11-02' },
      { grain: 'week', from: '2026-11-02', until: '2026-11-23' },
    ]);
  });

  it('the rows read cover each day of the range exactly once', () => {
    fc.assert(
      fc.property(date, fc.integer({ min: 1, max: 800 }), (from, days) => {
        const range = { from, to: addDays(from, days - 1) };
        const covered = new Map<string, number>();
        for (const piece of grainRanges(range)) {
          // Rows of a grain start on its period boundaries: every such start in [from, until).
          let start = piece.from;
          while ((dayNumber(start) as number) < (dayNumber(piece.until) as number)) {
            expect(periodStart(start, piece.grain)).toBe(start);
            const length = daysOf(piece.grain, start);
            for (let i = 0; i < length; i++) {
              const day = addDays(start, i);
              covered.set(day, (covered.get(day) ?? 0) + 1);
            }
            start = addDays(start, length);
          }
          expect(start).toBe(piece.until);
        }
        expect(covered.size).toBe(days);
        for (let i = 0; i < days; i++) expect(covered.get(addDays(from, i))).toBe(1);
      }),
    );
  });
});
