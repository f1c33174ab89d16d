import { describe, expect, it } from 'vitest';
import { isCountryCode, isSubdivisionCode } from '../platform/iso3166.js';
import { EU_STANDARD_VAT, sampleTaxRegions, sampleZones, US_STATE_SALES_TAX } from './sample-regions.js';

describe('the demo store regions', () => {
  it('lists the 27 EU member states, each an ISO 3166 country with a standard rate of 15 % or more', () => {
    const members = Object.keys(EU_STANDARD_VAT);
    expect(members).toHaveLength(27);
    for (const [country, rate] of Object.entries(EU_STANDARD_VAT)) {
      expect(isCountryCode(country), country).toBe(true);
      // The VAT directive's floor for a standard rate; Hungary's 27 % is the highest.
      expect(Number(rate), country).toBeGreaterThanOrEqual(15);
      expect(Number(rate), country).toBeLessThanOrEqual(27);
    }
    expect(EU_STANDARD_VAT).toMatchObject({ DE: '19', FR: '20', FI: '25.5', LU: '17', HU: '27' });
  });

  it('names US states by their ISO 3166-2 codes', () => {
    for (const region of Object.keys(US_STATE_SALES_TAX))
      expect(isSubdivisionCode(region), region).toBe(true);
  });

  it('gives a US store a home zone, the whole EU and the rest of the world, each country once', () => {
    const zones = sampleZones('US', 2);
    expect(zones.map((z) => z.countries.length)).toEqual([1, 27, 1]);
    expect(zones[2]?.countries).toEqual(['*']);
    const all = zones.flatMap((z) => z.countries);
    expect(new Set(all).size).toBe(all.length);
    expect(zones[0]?.rates[0]).toMatchObject({ name: 'Standard', price: '4.90', free_above: '75.00' });
    expect(sampleTaxRegions('US')).toHaveLength(27 + Object.keys(US_STATE_SALES_TAX).length);
  });

  it('leaves a home in the EU out of the EU zone, and prices a zero-decimal currency in whole units', () => {
    const zones = sampleZones('DE', 0);
    expect(zones[0]?.countries).toEqual(['DE']);
    expect(zones[1]?.countries).toHaveLength(26);
    expect(zones[1]?.countries).not.toContain('DE');
    expect(zones[0]?.rates[0]?.price).toBe('5');
    expect(sampleTaxRegions('DE')).toHaveLength(27);
  });
});
