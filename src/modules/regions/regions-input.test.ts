import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../platform/http/errors.js';
import { taxRateString } from './regions.serializers.js';
import { parseCountries, parsePlace, parseTaxRate } from './regions-input.js';

const fieldOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error.details?.[0]?.field;
    throw error;
  }
  return undefined;
};

describe('tax rates', () => {
  it('every rate written back reads as the same thousandths, without trailing zeros (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), (millipercent) => {
        const text = taxRateString(millipercent);
        expect(text).toMatch(/^(0|[1-9]\d{0,2})(\.\d{0,2}[1-9])?$/);
        expect(parseTaxRate(text)).toBe(millipercent);
        expect(parseTaxRate((millipercent / 1000).toFixed(3))).toBe(millipercent);
      }),
    );
  });

  it.each([['100.001'], ['7.2501'], [101], [1e-7], ['1e1']])('%s is refused naming rate', (rate) => {
    expect(fieldOf(() => parseTaxRate(rate))).toBe('rate');
  });
});

describe('countries and places', () => {
  it('upper-cases codes and keeps their order; refuses unknown, repeated and mixed "*"', () => {
    expect(parseCountries(['de', 'At'])).toEqual(['DE', 'AT']);
    expect(parseCountries(['*'])).toEqual(['*']);
    expect(fieldOf(() => parseCountries(['DE', 'XX']))).toBe('countries.1');
    expect(fieldOf(() => parseCountries(['DE', 'de']))).toBe('countries.1');
    expect(fieldOf(() => parseCountries(['*', 'DE']))).toBe('countries');
  });

  it('stores a region as its full ISO 3166-2 code, written either way in any case', () => {
    expect(parsePlace('us', 'ca')).toEqual({ country: 'US', region: 'US-CA' });
    expect(parsePlace('US', 'us-ca')).toEqual({ country: 'US', region: 'US-CA' });
    expect(parsePlace('DE', null)).toEqual({ country: 'DE', region: null });
    expect(fieldOf(() => parsePlace('US', 'US-XX'))).toBe('region');
    expect(fieldOf(() => parsePlace('US', 'DE-BY'))).toBe('region');
    expect(fieldOf(() => parsePlace('XX', null))).toBe('country');
  });
});
