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

/** PATCH /api/v1/products/{id}: a product's weight and taxability. */
export async function setProductFacts(
  api: Client,
  productId: string,
  facts: { weight_grams?: number; taxable?: boolean },
) {
  const res = await api.patch(`/api/v1/products/${productId}`, facts);
  if (res.statusCode !== 200) throw new Error(`product patch answered ${res.statusCode}: ${res.body}`);
}

/** PATCH /api/v1/store: the store's "prices include tax" setting. */
export async function setPricesIncludeTax(api: Client, included: boolean) {
  const res = await api.patch('/api/v1/store', { prices_include_tax: included });
  if (res.statusCode !== 200) throw new Error(`store patch answered ${res.statusCode}: ${res.body}`);
}
