import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { utcTimestampParser } from './timestamps.js';

// pg's own timestamptz parser (postgres-date, a dependency of pg-types): the fast path must agree with it.
const fromPgTypes = createRequire(createRequire(import.meta.url).resolve('pg-types'));
const pgParse = fromPgTypes('postgres-date') as (text: string) => unknown;

const calls: string[] = [];
const parse = utcTimestampParser((text) => {
  calls.push(text);
  return pgParse(text);
});

const same = (text: string) => {
  const ours = parse(text);
  const theirs = pgParse(text);
  expect(ours instanceof Date ? ours.getTime() : ours, text).toEqual(
    theirs instanceof Date ? theirs.getTime() : theirs,
  );
};

describe('utcTimestampParser', () => {
  it('reads UTC timestamps itself, to the millisecond pg reads', () => {
    const texts = [
      '2026-11-26 14:35:19+00',
      '2026-11-26 14:35:19.3+00',
      '2026-11-26 14:35:19.39+00',
      '2026-11-26 14:35:19.393+00',
      '2026-11-26 14:35:19.393123+00',
      '2026-01-02 03:46:39.999999+00',
      '2024-02-29 23:59:59.000001+00',
      '1970-01-01 00:00:00+00',
      '0100-01-01 00:00:00+00',
      '9999-12-31 23:59:59.999999+00',
    ];
    // Fractions whose `1000 * parseFloat` falls just below an integer (0.009 * 1000 = 8.999…), among others.
    for (let ms = 0; ms < 1000; ms++) {
      texts.push(`2026-11-26 14:35:19.${String(ms).padStart(3, '0')}+00`);
      texts.push(`2026-11-26 14:35:19.${String(ms * 1000 + ((ms * 7919) % 1000)).padStart(6, '0')}+00`);
    }
    calls.length = 0;
    for (const text of texts) same(text);
    expect(calls).toEqual([]);
  });

  it('hands every other form to pg', () => {
    const others = [
      'infinity',
      '-infinity',
      '2026-11-26 14:35:19+01',
      '2026-11-26 14:35:19.5-05:30',
      '2026-11-26 14:35:19+00 BC',
      '0099-06-01 12:00:00+00',
      '0001-01-01 00:00:00+00',
      '12026-11-26 14:35:19+00',
      '2026-11-26T14:35:19Z',
      '2026-11-26',
      '2026-11-26 14:35:19.+00',
      '2026-11-26 14:35:19.1234567+00',
      '2026-1x-26 14:35:19+00',
    ];
    calls.length = 0;
    for (const text of others) same(text);
    expect(calls).toEqual(others);
  });
});
