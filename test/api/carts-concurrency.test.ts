import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { cartsOf } from '../helpers/cart-factories.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * Contract §9: completing carts takes stock atomically (the last unit goes to one buyer), and a cart
 * completed several times at once becomes exactly one order.
 */
let app: TestApp;
let api: Client;
let carts: ReturnType<typeof cartsOf>;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
  carts = cartsOf(client(app), store.store.slug);
});
afterAll(() => app.close());

const orderTotal = async () => (await api.get('/api/v1/orders')).json().meta.pagination.total as number;

async function newCart(productId: string, n: number) {
  const res = await carts.create({ items: [{ productId, quantity: 1 }], email: `racer.${n}@example.com` });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

describe('completing carts concurrently', () => {
  it('200 carts completed at once for a product with stock 50: exactly 50 orders, stock 0, the rest 409', async () => {
    const p = await createProduct(api, { price: '3.00', inventory: 50 });
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) ids.push(await newCart(p.id, i));
    const before = await orderTotal();
    const answers = await Promise.all(
      ids.map((id, i) =>
        carts.complete(
          id,
          i % 2 ? { paymentMethod: 'manual' } : { paymentMethod: 'test_card', cardToken: 'tok_visa' },
        ),
      ),
    );
    const statuses = new Map<number, number>();
    for (const res of answers) statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    expect(Object.fromEntries(statuses)).toEqual({ 201: 50, 409: 150 });
    for (const res of answers.filter((r) => r.statusCode === 409))
      expect(res.json().error.code).toBe('insufficient_stock');
    expect((await api.get(`/api/v1/inventory/${p.id}`)).json().data.inventory).toBe(0);
    expect(await orderTotal()).toBe(before + 50);
    // The carts that lost stay open: their owners can change them.
    const lost = ids[answers.findIndex((r) => r.statusCode === 409)] ?? '';
    expect((await carts.get(lost)).statusCode).toBe(200);
    const won = ids[answers.findIndex((r) => r.statusCode === 201)] ?? '';
    expect((await carts.update(won, { email: 'late@example.com' })).statusCode).toBe(409);
  }, 120_000);

  it('the same cart completed 20 times at once: one order, and every answer carries it', async () => {
    const p = await createProduct(api, { price: '3.00', inventory: 100 });
    const id = await newCart(p.id, 1000);
    const before = await orderTotal();
    const answers = await Promise.all(Array.from({ length: 20 }, () => carts.complete(id)));
    const statuses = answers.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, ...Array(18).fill(200), 201].sort());
    const orderIds = new Set(answers.map((r) => r.json().data.id));
    expect(orderIds.size).toBe(1);
    expect(await orderTotal()).toBe(before + 1);
    expect((await api.get(`/api/v1/inventory/${p.id}`)).json().data.inventory).toBe(99);
  }, 60_000);
});
