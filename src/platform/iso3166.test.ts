import { describe, expect, it } from 'vitest';
import {
  COUNTRIES,
  countryName,
  isCountryCode,
  isSubdivisionCode,
  subdivisionOf,
  subdivisionsOf,
} from './iso3166.js';

describe('ISO 3166 codes', () => {
  it('knows assigned countries and refuses others', () => {
    expect(isCountryCode('DE')).toBe(true);
    expect(isCountryCode('XX')).toBe(false);
    expect(isCountryCode('de')).toBe(false);
    expect(COUNTRIES.length).toBeGreaterThan(240);
    expect(countryName('de')).toBe('Germany');
  });

  it('matches a region written as the code or the part after the hyphen, in any case', () => {
    expect(subdivisionOf('US', 'CA')).toBe('US-CA');
    expect(subdivisionOf('US', 'us-ca')).toBe('US-CA');
    expect(subdivisionOf('US', 'XX')).toBeNull();
    expect(subdivisionOf('DE', 'US-CA')).toBeNull();
    expect(subdivisionOf('US', null)).toBeNull();
    expect(isSubdivisionCode('US-XX')).toBe(false);
    expect(subdivisionsOf('US').some((s) => s.code === 'US-NY')).toBe(true);
  });
});
