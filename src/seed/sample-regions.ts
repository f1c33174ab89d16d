import type { RequestContext } from '../platform/http/context.js';
import { toDecimalString } from '../platform/money.js';

/**
 * The demo store's regions (contract §12), so that a newcomer sees shipping options and VAT at
 * checkout: a zone for its home country, one for the EU (without home), one for the rest of the
 * world, and tax regions for every EU member and, for a US home, a few states.
 */

/**
 * Standard VAT rates of the 27 EU member states in 2026, from the European Commission's "VAT rates
 * applied in the Member States of the European Union" (DG TAXUD; Greece is "EL" there, "GR" in
 * ISO 3166). Changes of 2025 included: Slovakia 23 % (January), Estonia 24 % (July), Romania 21 %
 * (August); Finland 25.5 % since September 2024.
 */
export const EU_STANDARD_VAT: Readonly<Record<string, string>> = {
  AT: '20',
  BE: '21',
  BG: '20',
  CY: '19',
  CZ: '21',
  DE: '19',
  DK: '25',
  EE: '24',
  ES: '21',
  FI: '25.5',
  FR: '20',
  GR: '24',
  HR: '25',
  HU: '27',
  IE: '23',
  IT: '22',
  LT: '21',
  LU: '17',
  LV: '21',
  MT: '18',
  NL: '21',
  PL: '23',
  PT: '23',
  RO: '21',
  SE: '25',
  SI: '22',
  SK: '23',
};

/**
 * A few US states' state-level sales tax (2026; local taxes on top are left out of a demo), as
 * published by each state's revenue department.
 */
export const US_STATE_SALES_TAX: Readonly<Record<string, string>> = {
  'US-CA': '7.25',
  'US-NY': '4',
  'US-TX': '6.25',
  'US-WA': '6.5',
  'US-FL': '6',
};

/** The home country of a demo store of this currency (a US store unless the currency says otherwise). */
export function homeCountryOf(currency: string): string {
  return { EUR: 'DE', GBP: 'GB', CAD: 'CA', AUD: 'AU', JPY: 'JP', CHF: 'CH' }[currency] ?? 'US';
}

interface RateInput {
  name: string;
  price: string;
  free_above?: string | null;
  delivery_days_min?: number | null;
  delivery_days_max?: number | null;
}

/** What seeding needs of the regions service (its merchant operations, as the API calls them). */
export interface RegionsWriter {
  createZone(
    ctx: RequestContext,
    input: { name: string; countries: string[]; rates?: RateInput[] },
  ): Promise<unknown>;
  createTaxRegion(
    ctx: RequestContext,
    input: {
      country: string;
      region?: string | null;
      name?: string;
      rate: string;
      shipping_taxable?: boolean;
    },
  ): Promise<unknown>;
}

/** The zones of a store at `home`, priced in a currency of `decimals` decimals. */
export function sampleZones(home: string, decimals: number) {
  // Amounts given in cents of a two-decimal currency, in the store's own minor units.
  const money = (cents: number) => toDecimalString(Math.round(cents * 10 ** (decimals - 2)), decimals);
  const eu = Object.keys(EU_STANDARD_VAT).filter((c) => c !== home);
  return [
    {
      name: home === 'US' ? 'United States' : 'Domestic',
      countries: [home],
      rates: [
        {
          name: 'Standard',
          price: money(490),
          free_above: money(7500),
          delivery_days_min: 2,
          delivery_days_max: 5,
        },
        { name: 'Express', price: money(1490), delivery_days_min: 1, delivery_days_max: 2 },
      ],
    },
    {
      name: 'European Union',
      countries: eu,
      rates: [
        {
          name: 'Standard',
          price: money(990),
          free_above: money(15000),
          delivery_days_min: 4,
          delivery_days_max: 9,
        },
        { name: 'Express', price: money(2490), delivery_days_min: 2, delivery_days_max: 4 },
      ],
    },
    {
      name: 'Rest of the world',
      countries: ['*'],
      rates: [{ name: 'International', price: money(1990), delivery_days_min: 7, delivery_days_max: 21 }],
    },
  ];
}

/** The tax regions: EU VAT per member (shipping taxed, as in the EU), and for a US home a few states. */
export function sampleTaxRegions(home: string) {
  return [
    ...Object.entries(EU_STANDARD_VAT).map(([country, rate]) => ({
      country,
      region: null,
      name: 'VAT',
      rate,
      shipping_taxable: true,
    })),
    ...(home === 'US'
      ? Object.entries(US_STATE_SALES_TAX).map(([region, rate]) => ({
          country: 'US',
          region,
          name: 'Sales tax',
          rate,
          shipping_taxable: false,
        }))
      : []),
  ];
}

/** Creates the zones and tax regions through the regions service (its rules and cache included). */
export async function seedRegions(
  regions: RegionsWriter,
  ctx: RequestContext,
  store: { currency: string; decimals: number },
): Promise<{ zones: number; taxRegions: number }> {
  const home = homeCountryOf(store.currency);
  const zones = sampleZones(home, store.decimals);
  for (const zone of zones) await regions.createZone(ctx, zone);
  const taxRegions = sampleTaxRegions(home);
  for (const region of taxRegions) await regions.createTaxRegion(ctx, region);
  return { zones: zones.length, taxRegions: taxRegions.length };
}
