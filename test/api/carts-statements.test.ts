import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { cartsOf } from '../helpers/cart-factories.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * A change of a cart is five statements (docs/performance.md, issue 34): BEGIN, the cart's lock, one
 * read of its lines, their products' facts and what pricing reads, one write of the line with the
 * cart's row, COMMIT. The read names the products by the lines as it reads them, after the lock: so
 * changes of one cart at once still merge into one line with every unit.
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

/** The statements `work` sends, in order. */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text: string };
    sent.push((typeof first === 'string' ? first : first.text).trim());
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = query;
  }
  return sent;
}

async function newCart() {
  const res = await carts.create({});
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

describe('a change of a cart in five statements', () => {
  it('add, merge, set a quantity, remove: BEGIN, lock, one read, the line written with the cart, COMMIT', async () => {
    const mug = await createProduct(api, {
      inventory: 10,
      images: [{ url: 'https://cdn.example.com/mug.jpg' }],
    });
    const cartId = await newCart();
    // A first change warms the store's caches (its row and its regions).
    await carts.addItem(await newCart(), { productId: mug.id, quantity: 1 });
    let answer: Awaited<ReturnType<typeof carts.addItem>> | undefined;
    const changes: [string, () => Promise<unknown>, RegExp][] = [
      [
        'add',
        async () => {
          answer = await carts.addItem(cartId, { productId: mug.id, quantity: 1 });
        },
        /^WITH line AS \(INSERT INTO cart_items .*\) UPDATE carts SET/s,
      ],
      [
        'merge',
        async () => {
          answer = await carts.addItem(cartId, { productId: mug.id, quantity: 2 });
        },
        /^WITH line AS \(UPDATE cart_items SET quantity .*\) UPDATE carts SET/s,
      ],
      [
        'set',
        async () => {
          answer = await carts.setQuantity(cartId, answer?.json().data.items[0].id, 4);
        },
        /^WITH line AS \(UPDATE cart_items SET quantity .*\) UPDATE carts SET/s,
      ],
      [
        'remove',
        async () => {
          answer = await carts.removeItem(cartId, answer?.json().data.items[0].id);
        },
        /^WITH line AS \(DELETE FROM cart_items .*\) UPDATE carts SET/s,
      ],
    ];
    const quantities: number[] = [];
    for (const [name, change, write] of changes) {
      const sent = await statementsOf(change);
      expect(answer?.statusCode, `${name}: ${answer?.body}`).toBe(200);
      quantities.push(answer?.json().data.items[0]?.quantity ?? 0);
      expect(sent, name).toHaveLength(5);
      expect(sent[0], name).toMatch(/^begin/i);
      expect(sent[1], name).toMatch(/for update$/i);
      // One read: the lines, their products' facts (with the image), the catalogue, the automatic discounts.
      expect(sent[2], name).toMatch(/^WITH r0 AS \(SELECT \* FROM cart_items/);
      for (const part of [/FROM product_media/, /FROM product_categories/, /FROM "discounts"/i])
        expect(sent[2], name).toMatch(part);
      expect(sent[3], name).toMatch(write);
      expect(sent[4], name).toMatch(/^commit/i);
      if (name === 'add') expect(answer?.json().data.items[0].image).toBe('https://cdn.example.com/mug.jpg');
    }
    expect(quantities).toEqual([1, 3, 4, 0]);
  });

  it('adds to one cart at once merge into one line with every unit (the lines are read after the lock)', async () => {
    const tea = await createProduct(api, { inventory: 100 });
    const cartId = await newCart();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => carts.addItem(cartId, { productId: tea.id, quantity: 1 })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(12).fill(200));
    const items = (await carts.get(cartId)).json().data.items;
    expect(items).toHaveLength(1);
    expect(items[0].quantity).toBe(12);
    // Each answer shows the cart as its own change left it: 1 to 12, once each.
    expect(answers.map((a) => a.json().data.items[0].quantity).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
  });

  it('GET reads a cart in two statements: the cart, then its lines, facts and what pricing reads', async () => {
    const cartId = await newCart();
    const pen = await createProduct(api, { inventory: 3 });
    await carts.addItem(cartId, { productId: pen.id, quantity: 2 });
    const sent = await statementsOf(async () => {
      const res = await carts.get(cartId);
      expect(res.json().data.items[0]).toMatchObject({ productId: pen.id, quantity: 2, inStock: true });
    });
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatch(/^WITH r0 AS \(SELECT \* FROM cart_items/);
  });
});
