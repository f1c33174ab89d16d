import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  currencyDecimals,
  MoneyFormatError,
  toDecimalNumber,
  toDecimalString,
  toMinorUnits,
} from './money.js';

describe('money', () => {
  it.each([
    ['19.99', 2, 1999],
    [19.99, 2, 1999],
    ['0.1', 2, 10],
    [0.1, 2, 10],
    ['5', 2, 500],
    ['5.00', 2, 500],
    ['1200', 0, 1200],
    ['1.234', 3, 1234],
    ['0', 2, 0],
  ])('toMinorUnits(%j, %i) = %i', (input, decimals, expected) => {
    expect(toMinorUnits(input, decimals)).toBe(expected);
  });

  it.each([
    ['-1'],
    ['1.999'],
    ['abc'],
    ['1e3'],
    [''],
    ['1.'],
    [Number.NaN],
    [-5],
    [1e21],
    ['9999999999999999'],
  ])('refuses %j', (input) => {
    expect(() => toMinorUnits(input as string | number, 2)).toThrow(MoneyFormatError);
  });

  it('formats minor units', () => {
    expect(toDecimalString(1999, 2)).toBe('19.99');
    expect(toDecimalString(5, 2)).toBe('0.05');
    expect(toDecimalString(-250, 2)).toBe('-2.50');
    expect(toDecimalString(1200, 0)).toBe('1200');
    expect(toDecimalNumber(1999, 2)).toBe(19.99);
  });

  it('converts to a number exactly as the decimal string reads', () => {
    const viaString = (minor: number, decimals: number) => Number(toDecimalString(minor, decimals));
    const differing: string[] = [];
    for (const decimals of [0, 1, 2, 3, 4]) {
      for (let minor = -20_000; minor <= 200_000; minor++)
        if (toDecimalNumber(minor, decimals) !== viaString(minor, decimals))
          differing.push(`${minor}/${decimals}`);
    }
    expect(differing).toEqual([]);
    fc.assert(
      fc.property(
        fc.integer({ min: -(10 ** 14), max: 10 ** 14 }),
        fc.constantFrom(0, 2, 3),
        (minor, decimals) => {
          expect(toDecimalNumber(minor, decimals)).toBe(viaString(minor, decimals));
        },
      ),
      { numRuns: 20_000 },
    );
    expect(Object.is(toDecimalNumber(0, 2), 0)).toBe(true);
  });

  it('knows currency decimals', () => {
    expect(currencyDecimals('USD')).toBe(2);
    expect(currencyDecimals('JPY')).toBe(0);
    expect(currencyDecimals('BHD')).toBe(3);
  });

  it('round-trips every amount exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), fc.constantFrom(0, 2, 3), (minor, decimals) => {
        expect(toMinorUnits(toDecimalString(minor, decimals), decimals)).toBe(minor);
      }),
    );
  });
});
