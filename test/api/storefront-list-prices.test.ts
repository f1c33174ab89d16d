import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  type ProductData,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody } from '../helpers/order-factories.js';

let app: TestApp;
let api: Client;
let shop: Client;
let slug: string;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  slug = store.store.slug;
  api = client(app, store.key);
  shop = client(app);
});
afterAll(() => app.close());

interface Listed {
  id: string;
  name: string;
  price: string;
  comparePrice: string | null;
  priceVaries: boolean;
}

async function listed(query = ''): Promise<Listed[]> {
  const res = await shop.get(`/api/storefront/${slug}/products?limit=100${query}`);
  expect(res.statusCode).toBe(200);
  return res.json().data;
}
const listedOne = async (id: string) => (await listed()).find((p) => p.id === id) as Listed;

/** What checkout charges for one of this variant, read from a quote (nothing is created). */
async function charged(product: ProductData, variantId: string): Promise<number> {
  const res = await shop.post(
    `/api/storefront/${slug}/checkout/quote`,
    checkoutBody([{ productId: product.id, variantId, quantity: 1 }]),
  );
  expect(res.statusCode).toBe(200);
  return res.json().data.lineItems[0].price;
}

/** The lowest price checkout charges among the variants that can be bought (all when none can). */
async function lowestCharged(product: ProductData): Promise<number> {
  const buyable = product.variants.filter((v) => v.inventory > 0);
  const prices = await Promise.all(
    (buyable.length ? buyable : product.variants).map((v) => charged(product, v.id)),
  );
  return Math.min(...prices);
}

describe('storefront list prices of products with variants', () => {
  it('show the lowest price checkout charges, "from" when variants differ, no "Was" no variant has', async () => {
    // The product: its own price and compare-at (27 / 29) are not what any variant sells at.
    const tee = await createProduct(api, {
      name: 'Tee',
      price: '27.00',
      compare_price: '29.00',
      options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
      variants: [
        { options: { Size: 'S' }, price: '26.00', inventory: 3, sku: 'TEE-S' },
        { options: { Size: 'M' }, price: '25.00', inventory: 3, sku: 'TEE-M' },
        // Cheaper still, but sold out: the list must not promise it.
        { options: { Size: 'L' }, price: '20.00', inventory: 0, sku: 'TEE-L' },
      ],
    });
    const row = await listedOne(tee.id);
    expect(Number(row.price)).toBe(await lowestCharged(tee));
    expect(row).toMatchObject({ price: '25.00', comparePrice: null, priceVaries: true });
    // Once the cheap one is restocked, it is the one the list shows.
    const large = tee.variants[2]?.id as string;
    expect(
      (await api.patch(`/api/v1/inventory/${large}`, { type: 'variant', adjustment: 2 })).statusCode,
    ).toBe(200);
    const restocked = await listedOne(tee.id);
    expect(restocked.price).toBe('20.00');
    expect(Number(restocked.price)).toBe(await charged(tee, large));
  });

  it('a compare-at price only from the variant shown; equal prices are not "from"', async () => {
    const mug = await createProduct(api, {
      name: 'Mug',
      price: '12.00',
      compare_price: '30.00',
      options: [{ name: 'Colour', values: ['Red', 'Blue'] }],
      variants: [
        { options: { Colour: 'Red' }, price: '10.00', compare_price: '14.00', inventory: 1 },
        { options: { Colour: 'Blue' }, price: '10.00', inventory: 1 },
      ],
    });
    expect(await listedOne(mug.id)).toMatchObject({
      price: '10.00',
      comparePrice: '14.00',
      priceVaries: false,
    });
    expect(await lowestCharged(mug)).toBe(10);
  });

  it('when every variant is sold out, the lowest of them all; a product without variants is unchanged', async () => {
    const cap = await createProduct(api, {
      name: 'Cap',
      price: '9.00',
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        { options: { Size: 'S' }, price: '8.00', inventory: 0 },
        { options: { Size: 'M' }, price: '7.00', inventory: 0 },
      ],
    });
    expect(await listedOne(cap.id)).toMatchObject({ price: '7.00', priceVaries: true });
    const plain = await createProduct(api, {
      name: 'Pin',
      price: '3.00',
      compare_price: '4.00',
      inventory: 1,
    });
    expect(await listedOne(plain.id)).toMatchObject({
      price: '3.00',
      comparePrice: '4.00',
      priceVaries: false,
    });
  });

  it('sorts by the price it shows', async () => {
    const prices = (rows: Listed[]) => rows.map((r) => Number(r.price));
    const ascending = prices(await listed('&sort=price_asc'));
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    const descending = prices(await listed('&sort=price_desc'));
    expect(descending).toEqual([...descending].sort((a, b) => b - a));
    expect(ascending.length).toBeGreaterThan(3);
  });

  it('every sort shows each product with the price, "Was" and "from" of the newest-first list, page by page', async () => {
    // The price sorts join every product's cheapest variant at once; newest and name look it up
    // for the page's rows only (products.shop-list.repository.ts): both must pick the same variant.
    const newest = new Map((await listed()).map((r) => [r.id, r]));
    expect(newest.size).toBeGreaterThan(3);
    for (const sort of ['newest', 'price_asc', 'price_desc', 'name']) {
      const all = await listed(`&sort=${sort}`);
      expect(all).toHaveLength(newest.size);
      for (const row of all) expect(row).toEqual(newest.get(row.id));
      const paged: Listed[] = [];
      for (let page = 1; page <= Math.ceil(all.length / 2); page++) {
        const res = await shop.get(`/api/storefront/${slug}/products?limit=2&page=${page}&sort=${sort}`);
        expect(res.statusCode).toBe(200);
        paged.push(...res.json().data);
      }
      expect(paged.map((r) => r.id)).toEqual(all.map((r) => r.id));
    }
  });
});
