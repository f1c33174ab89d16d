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
});
