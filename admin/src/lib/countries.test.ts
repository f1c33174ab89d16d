import { describe, expect, it } from 'vitest';
import { countryList, namer, REST_OF_WORLD, searchPlaces, zonePlaces } from './countries';

const PLACES = [
  { code: 'AX', name: 'Åland Islands' },
  { code: 'AT', name: 'Austria' },
  { code: 'DK', name: 'Denmark' },
  { code: 'DE', name: 'Germany' },
  { code: 'GB', name: 'United Kingdom' },
  { code: 'US', name: 'United States' },
];

const codes = (query: string, exclude: string[] = []) =>
  searchPlaces(PLACES, query, exclude).map((p) => p.code);

describe('searchPlaces', () => {
  it('lists every place for an empty query, without those already chosen', () => {
    expect(codes('')).toEqual(['AX', 'AT', 'DK', 'DE', 'GB', 'US']);
    expect(codes('  ', ['DE', 'US'])).toEqual(['AX', 'AT', 'DK', 'GB']);
  });

  it('puts the code first, then names starting with the text, then a word, then anywhere', () => {
    // "de": Germany's code, then Denmark (starts with "De"); nothing else has "de".
    expect(codes('de')).toEqual(['DE', 'DK']);
    expect(codes('king')).toEqual(['GB']);
    expect(codes('united')).toEqual(['GB', 'US']);
    expect(codes('ted')).toEqual(['GB', 'US']);
    expect(codes('Ger')).toEqual(['DE']);
  });

  it('ignores case and accents', () => {
    expect(codes('aland')).toEqual(['AX']);
    expect(codes('ÅLAND')).toEqual(['AX']);
    expect(codes('GERMANY')).toEqual(['DE']);
  });

  it('finds the rest of the world among the zone’s places', () => {
    const zone = zonePlaces(PLACES);
    expect(searchPlaces(zone, 'world').map((p) => p.code)).toEqual([REST_OF_WORLD]);
    expect(searchPlaces(zone, '*').map((p) => p.code)).toEqual([REST_OF_WORLD]);
    expect(searchPlaces(zone, 'rest', [REST_OF_WORLD])).toEqual([]);
  });
});

describe('names of a zone’s countries', () => {
  const nameOf = namer(PLACES);
  it('names "*" the rest of the world and leaves an unknown code as it is', () => {
    expect(nameOf('*')).toBe('Rest of the world');
    expect(nameOf('DE')).toBe('Germany');
    expect(nameOf('ZZ')).toBe('ZZ');
  });

  it('shortens a long list', () => {
    expect(countryList(['DE', 'AT'], nameOf)).toBe('Germany, Austria');
    expect(countryList(['DE', 'AT', 'DK', 'GB', 'US', 'AX'], nameOf, 2)).toBe('Germany, Austria and 4 more');
  });
});
