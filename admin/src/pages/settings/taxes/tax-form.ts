import type { TaxRegion } from '../../../api/types';

/**
 * A tax region's form as text fields, and the body a save sends (every field; an edit sends only
 * those that changed). The rate is sent as typed ("7.25"): the API names it when it is not a
 * percentage with at most 3 decimals between 0 and 100.
 */
export interface TaxDraft {
  country: string;
  /** ISO 3166-2 code, or '' for the whole country. */
  region: string;
  name: string;
  rate: string;
  shippingTaxable: boolean;
}

export function taxDraftOf(region?: TaxRegion): TaxDraft {
  return {
    country: region?.country ?? '',
    region: region?.region ?? '',
    name: region?.name ?? '',
    rate: region?.rate ?? '',
    shippingTaxable: region?.shipping_taxable ?? false,
  };
}

export function taxBodyOf(draft: TaxDraft) {
  return {
    country: draft.country,
    region: draft.region || null,
    name: draft.name.trim(),
    rate: draft.rate.trim().replace(/\s*%$/, ''),
    shipping_taxable: draft.shippingTaxable,
  };
}

/**
 * Tax regions in reading order: by country name, the whole country before its subdivisions, then
 * by subdivision name.
 */
export function sortTaxRegions(
  regions: readonly TaxRegion[],
  countryName: (code: string) => string,
  subdivisionName: (code: string) => string = (code) => code,
): TaxRegion[] {
  return [...regions].sort(
    (a, b) =>
      countryName(a.country).localeCompare(countryName(b.country), 'en') ||
      (a.region === null ? -1 : 0) - (b.region === null ? -1 : 0) ||
      subdivisionName(a.region ?? '').localeCompare(subdivisionName(b.region ?? ''), 'en'),
  );
}
