import { newId } from '../../src/platform/ids.js';
import type { TestApp as App } from './app.js';
import type { Client } from './catalog-factories.js';

/** A rate as §12 writes it: amounts as decimal strings of the store's currency. */
export interface RateInput {
  name: string;
  price: string;
  min_subtotal?: string;
  max_subtotal?: string;
  min_weight_grams?: number;
  max_weight_grams?: number;
  free_above?: string;
  delivery_days_min?: number;
  delivery_days_max?: number;
}

export interface ZoneData {
  id: string;
  name: string;
  countries: string[];
  rates: ({ id: string } & RateInput)[];
}

const cents = (amount: string | undefined) =>
  amount === undefined ? null : Math.round(Number(amount) * 100);

/**
 * POST /api/v1/shipping-zones. TEMPORARY until helper A's API is on main: writes the rows the API
 * would write, so the pricing path can be tested now.
 */
export async function createZone(
  t: { app: App; api: Client; storeId: string },
  body: { name: string; countries: string[]; rates: RateInput[] },
): Promise<ZoneData> {
  const id = newId();
  const db = t.app.database.db;
  await db.insertInto('shipping_zones').values({ id, store_id: t.storeId, name: body.name }).execute();
  await db
    .insertInto('shipping_zone_countries')
    .values(
      body.countries.map((country, position) => ({ store_id: t.storeId, country, zone_id: id, position })),
    )
    .execute();
  const rates = body.rates.map((r) => ({ id: newId(), ...r }));
  if (rates.length)
    await db
      .insertInto('shipping_rates')
      .values(
        rates.map((r, position) => ({
          id: r.id,
          store_id: t.storeId,
          zone_id: id,
          position,
          name: r.name,
          price: cents(r.price) ?? 0,
          min_subtotal: cents(r.min_subtotal),
          max_subtotal: cents(r.max_subtotal),
          min_weight_grams: r.min_weight_grams ?? null,
          max_weight_grams: r.max_weight_grams ?? null,
          free_above: cents(r.free_above),
          delivery_days_min: r.delivery_days_min ?? null,
          delivery_days_max: r.delivery_days_max ?? null,
        })),
      )
      .execute();
  return { id, name: body.name, countries: body.countries, rates };
}

/** POST /api/v1/tax-regions. TEMPORARY until helper A's API is on main (see createZone). */
export async function createTaxRegion(
  t: { app: App; api: Client; storeId: string },
  body: { country: string; region?: string | null; name: string; rate: string; shipping_taxable?: boolean },
) {
  const [whole = '0', fraction = ''] = body.rate.split('.');
  const id = newId();
  await t.app.database.db
    .insertInto('tax_regions')
    .values({
      id,
      store_id: t.storeId,
      country: body.country,
      region: body.region ?? null,
      name: body.name,
      rate_millipercent: Number(whole) * 1000 + Number(fraction.padEnd(3, '0')),
      shipping_taxable: body.shipping_taxable ?? false,
    })
    .execute();
  return { id, ...body };
}

/** A product's weight and taxability (until the products API takes them). */
export async function setProductFacts(
  app: App,
  storeId: string,
  productId: string,
  facts: { weight_grams?: number; taxable?: boolean },
) {
  await app.database.db
    .updateTable('products')
    .set(facts)
    .where('store_id', '=', storeId)
    .where('id', '=', productId)
    .execute();
}

/** The store's "prices include tax" setting (until PATCH /api/v1/store takes it). */
export async function setPricesIncludeTax(app: App, storeId: string, included: boolean) {
  await app.database.db
    .updateTable('stores')
    .set({ prices_include_tax: included })
    .where('id', '=', storeId)
    .execute();
  // Any settings change drops the store from the services' cache.
  await app.services.stores.updateSettings(storeId, { name: 'Test Store' });
}
