import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  currencyDecimals,
  formatMinor,
  formatMoney,
  formatSignedMinor,
  minorToDecimal,
  numberToMinor,
  parseMinor,
} from './money';

describe('currencyDecimals', () => {
  it.each([
    ['USD', 2],
    ['EUR', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['BHD', 3],
    ['KWD', 3],
    ['not a currency', 2],
  ])('%s has %i decimals', (currency, decimals) => {
    expect(currencyDecimals(currency)).toBe(decimals);
  });
});

describe('numberToMinor: an API order amount in minor units', () => {
  it.each([
    [19.99, 2, 1999],
    [0.1 + 0.2, 2, 30],
    [0.29, 2, 29],
    [4.35, 2, 435],
    [1200, 0, 1200],
    [1.234, 3, 1234],
    [-2.5, 2, -250],
    [0, 2, 0],
  ])('numberToMinor(%d, %i) = %i', (amount, decimals, minor) => {
    expect(numberToMinor(amount, decimals)).toBe(minor);
  });
});

describe('parseMinor: typed decimal text', () => {
  it.each([
    ['19.99', 2, 1999],
    ['19.9', 2, 1990],
    ['19', 2, 1900],
    [' 5.00 ', 2, 500],
    ['0.05', 2, 5],
    ['1.230', 2, 123], // trailing zeros beyond the currency's places are harmless
    ['1200', 0, 1200],
    ['1200.0', 0, 1200],
    ['1.234', 3, 1234],
    ['0', 2, 0],
    ['9999999999999', 2, 999999999999900],
  ])('parseMinor(%j, %i) = %i', (text, decimals, minor) => {
    expect(parseMinor(text, decimals)).toBe(minor);
  });

  it.each([
    ['', 2],
    ['abc', 2],
    ['-1', 2],
    ['1.999', 2],
    ['1.5', 0],
    ['1e3', 2],
    ['.5', 2],
    ['5.', 2],
    ['1,5', 2],
    ['99999999999999', 2], // 14 whole digits
  ])('parseMinor(%j, %i) is undefined', (text, decimals) => {
    expect(parseMinor(text, decimals)).toBeUndefined();
  });
});

describe('minorToDecimal', () => {
  it.each([
    [1999, 2, '19.99'],
    [5, 2, '0.05'],
    [0, 2, '0.00'],
    [-250, 2, '-2.50'],
    [-5, 2, '-0.05'],
    [1200, 0, '1200'],
    [1, 3, '0.001'],
  ])('minorToDecimal(%i, %i) = %s', (minor, decimals, text) => {
    expect(minorToDecimal(minor, decimals)).toBe(text);
  });

  it('round-trips through parseMinor for every amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), fc.constantFrom(0, 2, 3), (minor, decimals) => {
        expect(parseMinor(minorToDecimal(minor, decimals), decimals)).toBe(minor);
      }),
    );
  });
});

describe('formatting', () => {
  it('formatMinor shows the decimal amount in the currency', () => {
    expect(formatMinor(1999, 'USD')).toBe(formatMoney(19.99, 'USD'));
    expect(formatMinor(1200, 'JPY')).toBe(formatMoney(1200, 'JPY'));
    expect(formatMinor(1234, 'BHD')).toBe(formatMoney(1.234, 'BHD'));
    expect(formatMinor(1999, 'USD')).toContain('19.99');
  });

  it('formatMoney takes decimal strings as numbers', () => {
    expect(formatMoney('19.99', 'USD')).toBe(formatMoney(19.99, 'USD'));
  });

  it('formatMoney falls back to "amount CODE" for a code Intl refuses', () => {
    expect(formatMoney(5, 'DOLLARS')).toBe('5.00 DOLLARS');
    expect(formatMoney('12.5', 'DOLLARS')).toBe('12.50 DOLLARS');
  });

  it.each([
    [500, '+'],
    [-250, '−'],
  ])('formatSignedMinor(%i) starts with %s and shows the absolute amount', (minor, sign) => {
    expect(formatSignedMinor(minor, 'USD')).toBe(`${sign}${formatMinor(Math.abs(minor), 'USD')}`);
  });

  it('formatSignedMinor(0) has no sign', () => {
    expect(formatSignedMinor(0, 'USD')).toBe(formatMinor(0, 'USD'));
  });
});
