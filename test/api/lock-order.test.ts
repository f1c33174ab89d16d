import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { cartsOf } from '../helpers/cart-factories.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody } from '../helpers/order-factories.js';

/**
 * Checkout locks the buyer, then the stock; a cancel of a paid order gives the stock back and takes
 * the money off the buyer's total. Both must take the locks in the one documented order
 * (docs/decisions.md, "Lock order"), or they deadlock and PostgreSQL kills one of them.
 */
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

const deadlocksSoFar = async () => {
  // Statistics reach pg_stat_database within about a second of the transaction's end.
  await sql`SELECT pg_stat_clear_snapshot()`.execute(app.database.db);
  const { rows } = await sql<{ deadlocks: number }>`
    SELECT deadlocks::int AS deadlocks FROM pg_stat_database WHERE datname = current_database()`.execute(
    app.database.db,
  );
  return rows[0]?.deadlocks ?? 0;
};

describe('checkouts racing cancels of paid orders (same buyer, same product)', () => {
  it('300 requests: no 5xx and no deadlock', async () => {
    const product = await createProduct(api, { price: '10.00', inventory: 10_000 });
    const email = 'racer@example.com';
    const paid = () =>
      checkoutBody([{ productId: product.id, quantity: 1 }], {
        email,
        paymentMethod: 'test_card',
        cardToken: 'tok_visa',
      });
    const orderIds: string[] = [];
    let orderTotal = 0;
    for (let i = 0; i < 150; i++) {
      const res = await shop.post(`/api/storefront/${slug}/checkout`, paid());
      expect(res.statusCode, res.body).toBe(201);
      orderIds.push(res.json().data.id);
      orderTotal = res.json().data.total;
    }
    await new Promise((r) => setTimeout(r, 1500));
    const deadlocksBefore = await deadlocksSoFar();

    const requests = orderIds.flatMap((id) => [
      api.post(`/api/v1/orders/${id}/cancel`, {}),
      shop.post(`/api/storefront/${slug}/checkout`, paid()),
    ]);
    const answers = await Promise.all(requests);
    const statuses = new Map<number, number>();
    for (const res of answers) statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    const failed = answers.filter((res) => res.statusCode >= 500);
    expect(failed.length, `${JSON.stringify(Object.fromEntries(statuses))} ${failed[0]?.body}`).toBe(0);
    expect(Object.fromEntries(statuses)).toEqual({ 200: 150, 201: 150 });

    // Every cancel gave its unit back and every checkout took one: 10,000 − 150 + 150 − 150.
    const stock = await api.get(`/api/v1/inventory/${product.id}`);
    expect(stock.json().data.inventory).toBe(10_000 - 150);
    const customer = (await api.get(`/api/v1/customers?q=${email}`)).json().data[0];
    expect(customer.orders_count).toBe(300);
    expect(customer.total_spent).toBeCloseTo(150 * orderTotal, 2);

    // The transaction helper retries a deadlock; the lock order must make it not happen at all.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await deadlocksSoFar()) - deadlocksBefore).toBe(0);
  });
});

describe('cart completions racing cancels of paid orders and changes of the same carts (same buyer)', () => {
  it('no 5xx and no deadlock: the cart row is taken before the buyer, the stock and the rest', async () => {
    const product = await createProduct(api, { price: '10.00', inventory: 10_000 });
    const email = 'cart.racer@example.com';
    const carts = cartsOf(shop, slug);
    const orderIds: string[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await shop.post(
        `/api/storefront/${slug}/checkout`,
        checkoutBody([{ productId: product.id, quantity: 1 }], {
          email,
          paymentMethod: 'test_card',
          cardToken: 'tok_visa',
        }),
      );
      orderIds.push(res.json().data.id);
    }
    const cartIds: string[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await carts.create({ items: [{ productId: product.id, quantity: 1 }], email });
      cartIds.push(res.json().data.id);
    }
    await new Promise((r) => setTimeout(r, 1500));
    const deadlocksBefore = await deadlocksSoFar();
    const answers = await Promise.all([
      ...orderIds.map((id) => api.post(`/api/v1/orders/${id}/cancel`, {})),
      ...cartIds.flatMap((id) => [
        carts.complete(id, { paymentMethod: 'test_card', cardToken: 'tok_visa' }),
        carts.addItem(id, { productId: product.id, quantity: 1 }),
      ]),
    ]);
    const failed = answers.filter((res) => res.statusCode >= 500);
    expect(failed.length, failed[0]?.body).toBe(0);
    // Every cart became one order (an add that came after the completion is 409).
    const completes = answers.slice(orderIds.length).filter((_, i) => i % 2 === 0);
    expect(completes.map((r) => r.statusCode)).toEqual(cartIds.map(() => 201));
    await new Promise((r) => setTimeout(r, 1500));
    expect((await deadlocksSoFar()) - deadlocksBefore).toBe(0);
  });
});
