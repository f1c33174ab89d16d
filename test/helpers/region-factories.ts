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

/** POST /api/v1/shipping-zones (helper A's merchant API); fails the test unless it answers 201. */
export async function createZone(
  t: { api: Client },
  body: { name: string; countries: string[]; rates: RateInput[] },
): Promise<ZoneData> {
  const res = await t.api.post('/api/v1/shipping-zones', body);
  if (res.statusCode !== 201) throw new Error(`zone create answered ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

/** POST /api/v1/tax-regions; fails the test unless it answers 201. */
export async function createTaxRegion(
  t: { api: Client },
  body: { country: string; region?: string | null; name: string; rate: string; shipping_taxable?: boolean },
): Promise<{ id: string }> {
  const res = await t.api.post('/api/v1/tax-regions', body);
  if (res.statusCode !== 201) throw new Error(`tax region create answered ${res.statusCode}: ${res.body}`);
  return res.json().data;
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
