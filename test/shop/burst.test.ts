import type { AddressInfo } from 'node:net';
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
import { SHOP_ORIGIN } from '../helpers/shop-client.js';

/**
 * Bursts on the web shop over a real port (issue 16): the product list under 200 parallel readers,
 * and 50 shoppers who each put the last unit of a product in their cart and press "Place order"
 * together. Carts reserve nothing (contract §9), so every add is accepted; completion is where stock
 * is taken, and exactly one order may get the unit. No request may end in a 5xx.
 */
let app: TestApp;
let api: Client;
let base: string;
let shop: string;
let lastOne: ProductData;

const ADDRESS = {
  firstName: 'Burst',
  lastName: 'Shopper',
  line1: '1 Rush Lane',
  city: 'Leeds',
  postalCode: 'LS1 1AA',
  country: 'GB',
};

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: SHOP_ORIGIN } });
  const made = await createStoreWithKey(app);
  shop = `/shop/${made.store.slug}`;
  api = client(app, made.key);
  for (let i = 0; i < 30; i++)
    await createProduct(api, { name: `Filler ${i}`, price: '3.00', inventory: 10 });
  lastOne = await createProduct(api, { name: 'The Last Teapot', price: '40.00', inventory: 1 });
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`;
});
afterAll(() => app?.close());

/** A form post as a browser sends it (urlencoded, the shop's Origin, the shopper's cookie). */
function post(path: string, fields: Record<string, string>, cookie?: string) {
  return fetch(`${base}${shop}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      origin: SHOP_ORIGIN,
      'content-type': 'application/x-www-form-urlencoded',
      ...(cookie ? { cookie } : {}),
    },
    body: new URLSearchParams(fields).toString(),
  });
}

describe('bursts on the shop', () => {
  it('200 parallel list readers and 50 racing buyers of the last unit: one order, 49 × 409, no 5xx', async () => {
    const readers = Array.from({ length: 200 }, (_, i) =>
      fetch(`${base}${shop}/products${i % 2 ? '?sort=price_asc' : ''}`).then(async (res) => ({
        status: res.status,
        body: await res.text(),
      })),
    );
    const adds = Array.from({ length: 50 }, () =>
      post('/cart/items', { productId: lastOne.id, quantity: '1' }).then((res) => ({
        status: res.status,
        cookie: /emporium_cart=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0],
      })),
    );
    const [read, added] = await Promise.all([Promise.all(readers), Promise.all(adds)]);
    expect(read.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    for (const r of read) expect(r.body).toContain('Filler');
    // Nothing is reserved by a cart: each shopper's add of the one unit left is accepted.
    expect(added.map((a) => a.status)).toEqual(Array(50).fill(303));
    const carts = added.map((a) => a.cookie ?? '');
    expect(new Set(carts).size).toBe(50);

    const details = await Promise.all(
      carts.map((cookie, i) => post('/checkout/details', { ...ADDRESS, email: `b${i}@example.com` }, cookie)),
    );
    expect(details.map((r) => r.status)).toEqual(Array(50).fill(303));

    const placed = await Promise.all(
      carts.map((cookie) =>
        post('/checkout', { paymentMethod: 'test_card', cardToken: 'tok_visa' }, cookie).then(
          async (res) => ({
            status: res.status,
            location: res.headers.get('location'),
            body: await res.text(),
          }),
        ),
      ),
    );
    const statuses = placed.map((p) => p.status).sort();
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses).toEqual([303, ...Array(49).fill(409)]);
    const winner = placed.find((p) => p.status === 303);
    expect(winner?.location).toMatch(new RegExp(`^${shop}/orders/\\d+/confirmation$`));
    for (const lost of placed.filter((p) => p.status === 409))
      expect(lost.body).toContain('not enough stock');

    const orders = (await api.get('/api/v1/orders?limit=100')).json().data as unknown[];
    expect(orders).toHaveLength(1);
    const stock = (await api.get(`/api/v1/inventory/${lastOne.id}?type=product`)).json().data.inventory;
    expect(stock).toBe(0);
  });
});
