import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoStoreOnFirstStart } from '../../src/demo.js';
import { EU_STANDARD_VAT, US_STATE_SALES_TAX } from '../../src/seed/sample-regions.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, UNLIMITED } from '../helpers/catalog-factories.js';

/**
 * Contract §12 and issue 31 item 9: the first start's demo store sells across regions, so that a
 * newcomer sees shipping options and VAT at checkout. The demo store is created as the first start
 * creates it (on the test's empty database), then read and priced over HTTP.
 */
let app: TestApp;
let api: Client;
const shop = () => client(app);

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  // The first start prints its block to the terminal; the test's output does not need it.
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    await createDemoStoreOnFirstStart(app, app.database.db, app.config, pino({ level: 'silent' }));
  } finally {
    process.stdout.write = write;
  }
  const store = await app.services.stores.requireStoreBySlug('demo');
  api = client(app, (await app.services.stores.createApiKey(store.id, { scopes: 'all' })).key);
}, 120_000);
afterAll(() => app.close());

/** The first active product of the demo catalogue without variants, and its price. */
async function aProduct() {
  const res = await shop().get('/api/storefront/demo/products?limit=100');
  const products = res.json().data as {
    id: string;
    variants?: unknown[];
    hasVariants?: boolean;
    price: string;
  }[];
  const simple = products.find((p) => !p.hasVariants && !(p.variants && p.variants.length > 0));
  if (!simple) throw new Error('no simple product in the demo catalogue');
  return simple;
}

const quote = async (shippingAddress: Record<string, string>) => {
  const product = await aProduct();
  const res = await shop().post('/api/storefront/demo/checkout/quote', {
    email: 'newcomer@example.com',
    items: [{ productId: product.id, quantity: 1 }],
    shippingAddress,
    paymentMethod: 'manual',
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

describe('the demo store sells across regions', () => {
  it('has zones for the US, the EU and the rest of the world, with rates and delivery estimates', async () => {
    const res = await api.get('/api/v1/shipping-zones');
    expect(res.statusCode, res.body).toBe(200);
    const zones = res.json().data as { name: string; countries: string[]; rates: { name: string }[] }[];
    const byName = new Map(zones.map((z) => [z.name, z]));
    expect(byName.get('United States')?.countries).toEqual(['US']);
    expect([...(byName.get('European Union')?.countries ?? [])].sort()).toEqual(
      Object.keys(EU_STANDARD_VAT).sort(),
    );
    expect(byName.get('Rest of the world')?.countries).toEqual(['*']);
    expect(byName.get('European Union')?.rates.map((r) => r.name)).toEqual(['Standard', 'Express']);
    expect(zones.flatMap((z) => z.rates)).toHaveLength(5);
  });

  it('weighs its products, so rates by weight apply', async () => {
    const res = await api.get('/api/v1/products?limit=100');
    expect(res.statusCode, res.body).toBe(200);
    const products = res.json().data as { name: string; weight_grams: number }[];
    expect(products.length).toBeGreaterThan(0);
    for (const p of products) expect(p.weight_grams, p.name).toBeGreaterThan(0);
  });

  it('has a tax region for every EU member and a few US states', async () => {
    const res = await api.get('/api/v1/tax-regions?limit=100');
    expect(res.statusCode, res.body).toBe(200);
    const regions = res.json().data as {
      country: string;
      region: string | null;
      rate: string;
      name: string;
    }[];
    expect(regions).toHaveLength(27 + Object.keys(US_STATE_SALES_TAX).length);
    expect(regions).toContainEqual(
      expect.objectContaining({ country: 'DE', region: null, name: 'VAT', rate: '19' }),
    );
    expect(regions).toContainEqual(expect.objectContaining({ country: 'US', region: 'US-CA', rate: '7.25' }));
  });

  it('quotes a German buyer EU shipping options and 19 % VAT, a Californian sales tax', async () => {
    const germany = await quote({ line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' });
    expect(germany.shippingOptions.map((o: { name: string }) => o.name)).toEqual(['Standard', 'Express']);
    expect(germany.taxLines).toEqual([expect.objectContaining({ name: 'VAT', rate: '19' })]);
    expect(germany.taxAmount).toBeGreaterThan(0);
    const california = await quote({
      line1: '1 Main St',
      city: 'Los Angeles',
      region: 'CA',
      postalCode: '90001',
      country: 'US',
    });
    expect(california.taxLines).toEqual([expect.objectContaining({ name: 'Sales tax', rate: '7.25' })]);
    expect(california.shippingOptions[0]).toMatchObject({
      name: 'Standard',
      deliveryDaysMin: 2,
      deliveryDaysMax: 5,
    });
    // Anywhere else: the rest of the world's rate.
    const japan = await quote({ line1: '1-1 Chiyoda', city: 'Tokyo', postalCode: '100-0001', country: 'JP' });
    expect(japan.shippingOptions).toEqual([expect.objectContaining({ name: 'International', amount: 19.9 })]);
  });
});
