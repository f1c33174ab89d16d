import type { Db } from '../../src/platform/db/database.js';
import { newId } from '../../src/platform/ids.js';

/**
 * The "regions" variant of the checkout and cart-complete scenarios (issue 31): a store that sells
 * across regions, with 4 shipping zones of 3 rates each and 60 tax regions (the 50 US states and 10
 * EU countries), so that the pricing path's zone and tax lookups are on every order. Written directly,
 * like the scenarios' products: the regions service's cache is filled by the first checkout.
 */
export const REGIONS_SHAPE = '4 zones, 12 rates, 60 tax regions';

const US_STATES =
  'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY'.split(
    ' ',
  );
const EU_COUNTRIES = ['DE', 'FR', 'IT', 'ES', 'NL', 'AT', 'BE', 'PL', 'SE', 'IE'];

const ZONES: { name: string; countries: string[] }[] = [
  { name: 'United States', countries: ['US'] },
  { name: 'Europe', countries: EU_COUNTRIES },
  { name: 'Canada and Mexico', countries: ['CA', 'MX'] },
  { name: 'Rest of the world', countries: ['*'] },
];

/**
 * The addresses the variant's buyers cycle through (checkout's camelCase shape, as carts keep it): a
 * state with its own rate, another, and an EU country taxed country-wide.
 */
export const REGION_ADDRESSES = [
  { line1: '1 Main St', city: 'Los Angeles', region: 'CA', postalCode: '90001', country: 'US' },
  { line1: '2 Broadway', city: 'New York', region: 'NY', postalCode: '10001', country: 'US' },
  { line1: 'Hauptstr. 3', city: 'Berlin', postalCode: '10115', country: 'DE' },
];

/** Adds the zones, rates and tax regions to `storeId`. */
export async function addRegions(db: Db, storeId: string): Promise<void> {
  for (const [z, zone] of ZONES.entries()) {
    const zoneId = newId();
    await db
      .insertInto('shipping_zones')
      .values({ id: zoneId, store_id: storeId, name: zone.name })
      .execute();
    await db
      .insertInto('shipping_zone_countries')
      .values(
        zone.countries.map((country, position) => ({
          store_id: storeId,
          zone_id: zoneId,
          country,
          position,
        })),
      )
      .execute();
    const base = 500 + z * 700;
    await db
      .insertInto('shipping_rates')
      .values(
        [
          // Every order meets one: Standard has no condition.
          { name: 'Standard', price: base, free_above: 100_000, delivery_days_min: 3, delivery_days_max: 5 },
          {
            name: 'Express',
            price: base * 2,
            max_weight_grams: 20_000,
            delivery_days_min: 1,
            delivery_days_max: 2,
          },
          {
            name: 'Economy',
            price: base - 200,
            min_subtotal: 5_000,
            delivery_days_min: 5,
            delivery_days_max: 10,
          },
        ].map((rate, position) => ({ id: newId(), store_id: storeId, zone_id: zoneId, position, ...rate })),
      )
      .execute();
  }
  await db
    .insertInto('tax_regions')
    .values([
      ...US_STATES.map((state, i) => ({
        id: newId(),
        store_id: storeId,
        country: 'US',
        region: `US-${state}`,
        name: 'Sales tax',
        rate_millipercent: 4000 + ((i * 1375) % 5000),
      })),
      ...EU_COUNTRIES.map((country, i) => ({
        id: newId(),
        store_id: storeId,
        country,
        region: null,
        name: 'VAT',
        rate_millipercent: 19_000 + (i % 4) * 1000,
        shipping_taxable: true,
      })),
    ])
    .execute();
}
