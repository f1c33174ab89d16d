import { describe, expect, it } from 'vitest';
import type { TaxRegion } from '../../../api/types';
import { changedFields } from '../../../lib/concurrency';
import { sortTaxRegions, taxBodyOf, taxDraftOf } from './tax-form';

const CA: TaxRegion = {
  id: 't1',
  country: 'US',
  region: 'US-CA',
  name: 'Sales tax',
  rate: '7.25',
  shipping_taxable: false,
  created_at: '2026-11-28T10:00:00.000Z',
  updated_at: '2026-11-28T10:00:00.000Z',
};

describe('the tax region form', () => {
  it('sends a loaded region back unchanged, and only the rate when the rate changes', () => {
    const before = taxBodyOf(taxDraftOf(CA));
    expect(before).toEqual({
      country: 'US',
      region: 'US-CA',
      name: 'Sales tax',
      rate: '7.25',
      shipping_taxable: false,
    });
    expect(changedFields(before, taxBodyOf({ ...taxDraftOf(CA), rate: ' 7.5 % ' }))).toEqual(['rate']);
    expect(taxBodyOf({ ...taxDraftOf(CA), rate: ' 7.5 % ' }).rate).toBe('7.5');
  });

  it('sends the whole country as a null region', () => {
    expect(taxBodyOf({ ...taxDraftOf(), country: 'DE', name: ' VAT ', rate: '19' })).toEqual({
      country: 'DE',
      region: null,
      name: 'VAT',
      rate: '19',
      shipping_taxable: false,
    });
  });

  it('sorts by country name, the whole country first, then subdivisions by name', () => {
    const names: Record<string, string> = {
      US: 'United States',
      DE: 'Germany',
      'US-CA': 'California',
      'US-AL': 'Alabama',
    };
    const name = (code: string) => names[code] ?? code;
    const regions = [
      CA,
      { ...CA, id: 'us', region: null },
      { ...CA, id: 'de', country: 'DE', region: null },
      { ...CA, id: 'al', region: 'US-AL' },
    ];
    expect(sortTaxRegions(regions, name, name).map((r) => r.id)).toEqual(['de', 'us', 'al', 't1']);
  });
});
