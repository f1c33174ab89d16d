import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreRegions } from '../../src/modules/regions/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createProduct } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * The zones and tax regions the pricing path reads (RegionsPort) are cached per store in each API
 * process: a write through either of two processes on one database shows in the other's next
 * read within milliseconds (the change feed), while a catalogue change (every sale makes one)
 * leaves the cached regions alone.
 */

let a: TestApp;
let b: TestApp;
let storeId: string;
let merchant: ReturnType<typeof client>;

/** Polls `read` until `done` holds or `ms` pass; answers how long it took (or fails the test). */
async function within<T>(ms: number, read: () => Promise<T>, done: (value: T) => boolean): Promise<number> {
  const started = performance.now();
  for (;;) {
    const value = await read();
    if (done(value)) return performance.now() - started;
    if (performance.now() - started > ms) throw new Error(`still ${JSON.stringify(value)} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeAll(async () => {
  a = await buildTestApp({ changeFeed: true });
  b = await buildTestApp({ testDatabase: a.testDatabase, changeFeed: true });
  const shop = await createStoreWithKey(a);
  storeId = shop.store.id;
  merchant = client(a, shop.key);
});

afterAll(async () => {
  await b?.close();
  await a?.close();
});

const inB = () => b.services.regions.regionsOf(storeId);
const priceInB = async () => (await inB()).zones[0]?.rates[0]?.price;

describe('the regions cache across two processes', () => {
  it('a zone, a rate and a tax region written through one process show in the other’s cached view', async () => {
    expect(await inB()).toEqual({ zones: [], taxRegions: [] });
    const created = await merchant.post('/api/v1/shipping-zones', {
      name: 'EU',
      countries: ['DE'],
      rates: [{ name: 'Std', price: '4.90' }],
    });
    expect(created.statusCode).toBe(201);
    const zone = created.json().data;
    const createdMs = await within(1_000, priceInB, (p) => p === 490);

    const repriced = await merchant.patch(`/api/v1/shipping-zones/${zone.id}`, {
      rates: [{ id: zone.rates[0].id, name: 'Std', price: '5.90' }],
    });
    expect(repriced.statusCode).toBe(200);
    const patchedMs = await within(1_000, priceInB, (p) => p === 590);

    const tax = await merchant.post('/api/v1/tax-regions', { country: 'DE', name: 'VAT', rate: '19' });
    expect(tax.statusCode).toBe(201);
    await within(
      1_000,
      async () => (await inB()).taxRegions[0]?.rateMillipercent,
      (r) => r === 19_000,
    );

    expect((await merchant.del(`/api/v1/shipping-zones/${zone.id}`)).statusCode).toBe(204);
    await within(
      1_000,
      async () => (await inB()).zones.length,
      (n) => n === 0,
    );
    // Far inside the cache's 30 s: the change came through the feed, not the TTL.
    expect(createdMs).toBeLessThan(1_000);
    expect(patchedMs).toBeLessThan(1_000);
  });

  it('is served from memory: a catalogue change leaves the cached regions in place, a regions change does not', async () => {
    const first = await inB();
    expect(await inB()).toBe(first);
    const product = await createProduct(merchant, { name: 'Lamp', price: '20.00' });
    expect((await merchant.patch(`/api/v1/products/${product.id}`, { price: '21.00' })).statusCode).toBe(200);
    // Give the catalogue's NOTIFY time to arrive: the regions' entry is still the same object.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await inB()).toBe(first);

    // Changed behind Emporium's back, the cache does not know (its TTL bounds that)...
    await sql`INSERT INTO tax_regions (id, store_id, country, name, rate_millipercent)
      VALUES (gen_random_uuid(), ${storeId}, 'AT', 'USt', 20000)`.execute(a.database.db);
    expect(await inB()).toBe(first);
    // ...a write through Emporium ends the entry, and the next read sees both.
    expect((await merchant.post('/api/v1/tax-regions', { country: 'FR', rate: '20' })).statusCode).toBe(201);
    const seen = await within(
      1_000,
      inB,
      (r: StoreRegions) =>
        r.taxRegions.some((t) => t.country === 'FR') && r.taxRegions.some((t) => t.country === 'AT'),
    );
    expect(seen).toBeLessThan(1_000);
  });
});
