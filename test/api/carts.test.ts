import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { ADDRESS, cartsOf } from '../helpers/cart-factories.js';
import { type Client, client, createProduct, sizedProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody, setPricing } from '../helpers/order-factories.js';

/** Contract §9, carts: every endpoint and error over HTTP, on a real database. */
let app: TestApp;
let api: Client;
let shop: Client;
let slug: string;
let carts: ReturnType<typeof cartsOf>;
/** Every (operation, status) the endpoints answered in this file. */
const seen = new Set<string>();

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  slug = store.store.slug;
  api = client(app, store.key);
  shop = client(app);
  carts = cartsOf(shop, slug, seen);
  // $5 flat shipping, free from $100; 10 % tax: the checkout suite's settings.
  await setPricing(app, store.store.id, {
    shipping_flat_rate: 500,
    free_shipping_threshold: 10000,
    tax_rate_bps: 1000,
  });
});
afterAll(() => app.close());

const stockOf = async (id: string) => (await api.get(`/api/v1/inventory/${id}`)).json().data.inventory;
const orderCount = async () => (await api.get('/api/v1/orders')).json().meta.pagination.total as number;

async function newCart(body: unknown = {}) {
  const res = await carts.create(body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

describe('POST /carts and GET /carts/{id}', () => {
  it('creates an empty cart with an unguessable id, expiring 30 days after its last change', async () => {
    const res = await carts.create({});
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const cart = res.json().data;
    expect(cart).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
      currency: 'USD',
      items: [],
      itemCount: 0,
      subtotal: 0,
      discountAmount: 0,
      shippingAmount: 0,
      taxAmount: 0,
      total: 0,
      couponCode: null,
      // Contract §12: the options once the cart has an address, the tax lines, taxes included.
      shippingOptions: [],
      shippingMethod: null,
      taxLines: [],
      taxesIncluded: false,
      email: null,
      shippingAddress: null,
      customerId: null,
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      expiresAt: expect.any(String),
    });
    expect(Date.parse(cart.expiresAt) - Date.parse(cart.updatedAt)).toBe(30 * 86_400_000);
    const other = await newCart();
    expect(other.id).not.toBe(cart.id);
    const got = await carts.get(cart.id);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toEqual(cart);
  });

  it('creates a cart with lines (the same product merged) and an e-mail, priced as the quote prices it', async () => {
    const mug = await createProduct(api, {
      name: 'Mug',
      price: '12.50',
      inventory: 10,
      sku: 'MUG-1',
      images: [{ url: 'https://cdn.example.com/mug.jpg' }],
    });
    const res = await carts.create({
      email: 'ada@example.com',
      items: [
        { productId: mug.id, quantity: 1 },
        { productId: mug.id, quantity: 1 },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    const cart = res.json().data;
    expect(cart).toMatchObject({
      email: 'ada@example.com',
      itemCount: 2,
      subtotal: 25,
      shippingAmount: 5,
      taxAmount: 2.5,
      total: 32.5,
      items: [
        {
          id: expect.any(String),
          productId: mug.id,
          variantId: null,
          name: 'Mug',
          variantTitle: null,
          sku: 'MUG-1',
          image: expect.stringContaining('mug'),
          quantity: 2,
          price: 12.5,
          total: 25,
          inStock: true,
        },
      ],
    });
    const quote = await shop.post(
      `/api/storefront/${slug}/checkout/quote`,
      checkoutBody([{ productId: mug.id, quantity: 2 }]),
    );
    const q = quote.json().data;
    expect([cart.subtotal, cart.discountAmount, cart.shippingAmount, cart.taxAmount, cart.total]).toEqual([
      q.subtotal,
      q.discountAmount,
      q.shippingAmount,
      q.taxAmount,
      q.total,
    ]);
    // A cart never holds stock.
    expect(await stockOf(mug.id)).toBe(10);
  });

  it('refuses bad lines: unknown, draft or archived product 400; above tracked stock 409', async () => {
    const draft = await createProduct(api, { status: 'draft' });
    const archived = await createProduct(api, { status: 'archived' });
    const few = await createProduct(api, { inventory: 2 });
    const untracked = await createProduct(api, { inventory: 0, track_inventory: false });
    for (const productId of [draft.id, archived.id, '0190d0b4-0000-7000-8000-000000000000', 'nope']) {
      const res = await carts.create({ items: [{ productId, quantity: 1 }] });
      expect(res.statusCode, productId).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'invalid_request',
        details: [{ field: 'items.0.productId', message: 'unknown or unavailable product' }],
      });
    }
    const short = await carts.create({ items: [{ productId: few.id, quantity: 3 }] });
    expect(short.statusCode).toBe(409);
    expect(short.json().error.code).toBe('insufficient_stock');
    const ok = await carts.create({ items: [{ productId: untracked.id, quantity: 500 }] });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().data.items[0]).toMatchObject({ quantity: 500, inStock: true });
    const bad = await carts.create({ items: [{ productId: few.id, quantity: 0 }], extra: 1 });
    expect(bad.statusCode).toBe(400);
  });

  it('404: unknown cart, a cart of another store, an unknown store', async () => {
    const cart = await newCart();
    expect((await carts.get('x'.repeat(32))).statusCode).toBe(404);
    expect((await carts.get('short')).json().error.code).toBe('not_found');
    const other = await createStoreWithKey(app);
    const elsewhere = cartsOf(shop, other.store.slug, seen);
    expect((await elsewhere.get(cart.id)).statusCode).toBe(404);
    expect((await elsewhere.update(cart.id, { email: 'a@example.com' })).statusCode).toBe(404);
    expect((await elsewhere.complete(cart.id)).statusCode).toBe(404);
    expect((await cartsOf(shop, 'no-such-store').get(cart.id)).statusCode).toBe(404);
  });
});

describe('lines: add, merge, change, remove', () => {
  it('merges the same product and variant into one line; other variants get their own', async () => {
    const tee = await createProduct(api, sizedProduct({ S: 5, M: 5 }));
    const [s, m] = tee.variants;
    const cart = await newCart();
    const add = (variantId: string | undefined, quantity: number) =>
      carts.addItem(cart.id, { productId: tee.id, variantId, quantity });
    expect((await add(s?.id, 1)).statusCode).toBe(200);
    expect((await add(s?.id, 2)).statusCode).toBe(200);
    const res = await add(m?.id, 1);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.items).toMatchObject([
      { variantId: s?.id, variantTitle: 'S', quantity: 3, price: 20, total: 60 },
      { variantId: m?.id, variantTitle: 'M', quantity: 1, price: 22.5, total: 22.5 },
    ]);
    expect(data).toMatchObject({ itemCount: 4, subtotal: 82.5 });

    const noChoice = await add(undefined, 1);
    expect(noChoice.statusCode).toBe(400);
    expect(noChoice.json().error.details).toEqual([
      { field: 'variantId', message: 'this product has variants: choose one' },
    ]);
    const foreign = await createProduct(api, sizedProduct({ S: 1, M: 1 }));
    const wrong = await add(foreign.variants[0]?.id, 1);
    expect(wrong.json().error.details).toEqual([
      { field: 'variantId', message: 'not a variant of this product' },
    ]);
    // Merged quantity above the variant's stock: 3 + 3 > 5.
    const over = await add(s?.id, 3);
    expect(over.statusCode).toBe(409);
    expect(over.json().error.code).toBe('insufficient_stock');
    expect((await carts.get(cart.id)).json().data.items[0].quantity).toBe(3);
  });

  it('PATCH sets a quantity (0 removes), DELETE removes; unknown lines and carts are 404', async () => {
    const p = await createProduct(api, { price: '4.00', inventory: 6 });
    const q = await createProduct(api, { price: '1.00', inventory: 6 });
    const cart = await newCart({
      items: [
        { productId: p.id, quantity: 1 },
        { productId: q.id, quantity: 1 },
      ],
    });
    const [lineP, lineQ] = cart.items;
    const set = await carts.setQuantity(cart.id, lineP.id, 5);
    expect(set.statusCode).toBe(200);
    expect(set.json().data.items[0]).toMatchObject({ id: lineP.id, quantity: 5, total: 20 });
    const tooMany = await carts.setQuantity(cart.id, lineP.id, 7);
    expect(tooMany.statusCode).toBe(409);
    expect(tooMany.json().error.code).toBe('insufficient_stock');
    const zero = await carts.setQuantity(cart.id, lineQ.id, 0);
    expect(zero.json().data.items.map((i: { id: string }) => i.id)).toEqual([lineP.id]);
    const removed = await carts.removeItem(cart.id, lineP.id);
    expect(removed.statusCode).toBe(200);
    expect(removed.json().data).toMatchObject({ items: [], itemCount: 0, total: 0 });
    expect((await carts.removeItem(cart.id, lineP.id)).statusCode).toBe(404);
    expect((await carts.setQuantity(cart.id, 'nope', 1)).statusCode).toBe(404);
    expect((await carts.setQuantity(cart.id, lineP.id, -1)).statusCode).toBe(400);
    expect((await carts.addItem('x'.repeat(32), { productId: p.id, quantity: 1 })).statusCode).toBe(404);
    expect((await carts.addItem(cart.id, { productId: p.id })).statusCode).toBe(400);
  });

  it('reflects price changes, stock changes and archived products when read', async () => {
    const p = await createProduct(api, { price: '10.00', inventory: 3 });
    const gone = await createProduct(api, { price: '1.00', inventory: 3 });
    const cart = await newCart({
      items: [
        { productId: p.id, quantity: 2 },
        { productId: gone.id, quantity: 1 },
      ],
    });
    expect(cart.subtotal).toBe(21);
    expect((await api.patch(`/api/v1/products/${p.id}`, { price: '15.00' })).statusCode).toBe(200);
    expect((await api.patch(`/api/v1/products/${gone.id}`, { status: 'archived' })).statusCode).toBe(200);
    const res = await carts.get(cart.id);
    expect(res.json().data).toMatchObject({
      items: [{ productId: p.id, price: 15, total: 30, inStock: true }],
      subtotal: 30,
      total: 38,
    });
    // Stock sold elsewhere since: the line stays, marked out of stock.
    await shop.post(`/api/storefront/${slug}/checkout`, checkoutBody([{ productId: p.id, quantity: 2 }]));
    expect((await carts.get(cart.id)).json().data.items[0]).toMatchObject({ quantity: 2, inStock: false });
  });
});

describe('PATCH /carts/{id}: e-mail, address, coupon', () => {
  it('sets the e-mail and address; refuses bad ones', async () => {
    const cart = await newCart();
    const res = await carts.update(cart.id, { email: 'grace@example.com', shippingAddress: ADDRESS });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      email: 'grace@example.com',
      shippingAddress: { ...ADDRESS, country: 'US' },
    });
    expect(Date.parse(res.json().data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(cart.updatedAt));
    expect((await carts.update(cart.id, { email: 'not an email' })).statusCode).toBe(400);
    expect((await carts.update(cart.id, { shippingAddress: { line1: 'x' } })).statusCode).toBe(400);
    expect((await carts.update(cart.id, { status: 'completed' })).statusCode).toBe(400);
    const cleared = await carts.update(cart.id, { shippingAddress: null });
    expect(cleared.json().data).toMatchObject({ email: 'grace@example.com', shippingAddress: null });
  });

  it('applies a coupon, refuses one that does not apply naming why, removes it with null', async () => {
    const code = `CART${Date.now()}`;
    const made = await api.post('/api/v1/discounts', {
      code,
      type: 'percentage',
      value: '10',
      min_subtotal: '30.00',
    });
    expect(made.statusCode, made.body).toBe(201);
    const p = await createProduct(api, { price: '20.00', inventory: 10 });
    const cart = await newCart();
    const empty = await carts.update(cart.id, { couponCode: code });
    expect(empty.statusCode).toBe(400);
    await carts.addItem(cart.id, { productId: p.id, quantity: 1 });

    const below = await carts.update(cart.id, { couponCode: code });
    expect(below.statusCode).toBe(400);
    expect(below.json().error.details).toEqual([
      { field: 'couponCode', message: 'the order subtotal is below its minimum of 30.00' },
    ]);
    const unknown = await carts.update(cart.id, { couponCode: 'NOPE' });
    expect(unknown.json().error.details).toEqual([
      { field: 'couponCode', message: 'no discount has this code' },
    ]);

    await carts.addItem(cart.id, { productId: p.id, quantity: 1 });
    const applied = await carts.update(cart.id, { couponCode: code });
    expect(applied.statusCode, applied.body).toBe(200);
    expect(applied.json().data).toMatchObject({
      couponCode: code,
      subtotal: 40,
      discountAmount: 4,
      shippingAmount: 5,
      taxAmount: 3.6,
      total: 44.6,
    });
    // Below the minimum again: the coupon no longer applies and is dropped from the cart.
    const line = applied.json().data.items[0].id;
    const fewer = await carts.setQuantity(cart.id, line, 1);
    expect(fewer.json().data).toMatchObject({ couponCode: null, discountAmount: 0, subtotal: 20 });
    await carts.setQuantity(cart.id, line, 2);
    expect((await carts.get(cart.id)).json().data.couponCode).toBeNull();

    await carts.update(cart.id, { couponCode: code });
    const removed = await carts.update(cart.id, { couponCode: null });
    expect(removed.json().data).toMatchObject({ couponCode: null, discountAmount: 0, total: 49 });
  });
});

describe('POST /carts/{id}/complete', () => {
  it('manual: the order as checkout answers it (201), the stock taken, the cart closed; again: the same order (200)', async () => {
    const p = await createProduct(api, { name: 'Kettle', price: '10.00', inventory: 5 });
    const code = `DONE${Date.now()}`;
    await api.post('/api/v1/discounts', { code, type: 'fixed_amount', value: '2.00' });
    const cart = await newCart({ items: [{ productId: p.id, quantity: 2 }], email: 'buyer@example.com' });
    await carts.update(cart.id, { shippingAddress: ADDRESS, couponCode: code });
    const res = await carts.complete(cart.id);
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json().data;
    expect(order).toMatchObject({
      status: 'pending',
      paymentStatus: 'unpaid',
      paymentMethod: 'manual',
      email: 'buyer@example.com',
      subtotal: 20,
      discountAmount: 2,
      shippingAmount: 5,
      taxAmount: 1.8,
      total: 24.8,
      couponCode: code,
      lineItems: [{ productId: p.id, name: 'Kettle', quantity: 2, price: 10, total: 20 }],
      shippingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' },
    });
    expect(await stockOf(p.id)).toBe(3);
    // The same order, as checkout's own GET-less replay answers it.
    const again = await carts.complete(cart.id, { paymentMethod: 'test_card', cardToken: 'tok_visa' });
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual(order);
    expect(await stockOf(p.id)).toBe(3);
    // A closed cart can be read but no longer changed.
    expect((await carts.get(cart.id)).statusCode).toBe(200);
    const closed = await carts.addItem(cart.id, { productId: p.id, quantity: 1 });
    expect(closed.statusCode).toBe(409);
    expect(closed.json().error.code).toBe('conflict');
    expect((await carts.update(cart.id, { email: 'x@example.com' })).statusCode).toBe(409);
  });

  it('places what GET shows: a coupon that stopped applying is dropped, an archived line left out', async () => {
    const kept = await createProduct(api, { name: 'Kept', price: '40.00', inventory: 5 });
    const gone = await createProduct(api, { name: 'Gone', price: '7.00', inventory: 5 });
    const code = `STALE${Date.now()}`;
    const discount = (
      await api.post('/api/v1/discounts', { code, type: 'fixed_amount', value: '3.00' })
    ).json().data;
    const cart = await newCart({
      items: [
        { productId: kept.id, quantity: 1 },
        { productId: gone.id, quantity: 1 },
      ],
      email: 'stale@example.com',
    });
    expect((await carts.update(cart.id, { couponCode: code })).json().data.couponCode).toBe(code);
    expect((await api.patch(`/api/v1/discounts/${discount.id}`, { active: false })).statusCode).toBe(200);
    expect((await api.patch(`/api/v1/products/${gone.id}`, { status: 'archived' })).statusCode).toBe(200);
    const shown = (await carts.get(cart.id)).json().data;
    const res = await carts.complete(cart.id);
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json().data;
    expect(order).toMatchObject({ subtotal: shown.subtotal, discountAmount: 0, total: shown.total });
    expect(order.couponCode ?? null).toBeNull();
    expect(order.lineItems).toMatchObject([{ productId: kept.id, quantity: 1 }]);
    expect(await stockOf(gone.id)).toBe(5);
  });

  it('without a coupon, an automatic discount applies as it does at checkout', async () => {
    const p = await createProduct(api, { price: '30.00', inventory: 5 });
    const title = `Auto ${Date.now()}`;
    const auto = await api.post('/api/v1/discounts', {
      code: null,
      title,
      type: 'fixed_amount',
      value: '4.00',
    });
    expect(auto.statusCode, auto.body).toBe(201);
    try {
      const cart = await newCart({ items: [{ productId: p.id, quantity: 1 }], email: 'auto@example.com' });
      expect((await carts.get(cart.id)).json().data.discountAmount).toBe(4);
      const res = await carts.complete(cart.id);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().data).toMatchObject({ subtotal: 30, discountAmount: 4 });
    } finally {
      await api.patch(`/api/v1/discounts/${auto.json().data.id}`, { active: false });
    }
  });

  it('test_card: tok_visa pays; tok_decline is 402, nothing created, the cart stays open', async () => {
    const p = await createProduct(api, { price: '10.00', inventory: 5 });
    const cart = await newCart({ items: [{ productId: p.id, quantity: 1 }], email: 'card@example.com' });
    const before = await orderCount();
    const declined = await carts.complete(cart.id, { paymentMethod: 'test_card', cardToken: 'tok_decline' });
    expect(declined.statusCode).toBe(402);
    expect(declined.json().error.code).toBe('payment_declined');
    expect(await orderCount()).toBe(before);
    expect(await stockOf(p.id)).toBe(5);
    expect((await carts.addItem(cart.id, { productId: p.id, quantity: 1 })).statusCode).toBe(200);
    const paid = await carts.complete(cart.id, { paymentMethod: 'test_card', cardToken: 'tok_visa' });
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json().data).toMatchObject({ status: 'processing', paymentStatus: 'paid', amountPaid: 27 });
    expect(await stockOf(p.id)).toBe(3);
    expect(await orderCount()).toBe(before + 1);
  });

  it('400: no e-mail, no lines, an unknown payment method or card token; 409: short of stock now; 404: unknown cart', async () => {
    const p = await createProduct(api, { price: '10.00', inventory: 2 });
    const noEmail = await newCart({ items: [{ productId: p.id, quantity: 1 }] });
    const res = await carts.complete(noEmail.id);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([
      { field: 'email', message: 'the cart needs an e-mail address before it is completed' },
    ]);
    const empty = await newCart({ email: 'e@example.com' });
    expect((await carts.complete(empty.id)).statusCode).toBe(400);
    const cart = await newCart({ items: [{ productId: p.id, quantity: 2 }], email: 'e@example.com' });
    expect((await carts.complete(cart.id, { paymentMethod: 'cash' })).statusCode).toBe(400);
    expect((await carts.complete(cart.id, {})).statusCode).toBe(400);
    expect(
      (await carts.complete(cart.id, { paymentMethod: 'test_card', cardToken: 'tok_what' })).statusCode,
    ).toBe(400);
    await shop.post(`/api/storefront/${slug}/checkout`, checkoutBody([{ productId: p.id, quantity: 1 }]));
    const short = await carts.complete(cart.id);
    expect(short.statusCode).toBe(409);
    expect(short.json().error.code).toBe('insufficient_stock');
    expect((await carts.complete('y'.repeat(32))).statusCode).toBe(404);
  });
});

describe('expiry', () => {
  it('a cart unchanged for 30 days is 404, and the worker deletes it', async () => {
    const p = await createProduct(api, { inventory: 5 });
    const old = await newCart({ items: [{ productId: p.id, quantity: 1 }] });
    const fresh = await newCart({ items: [{ productId: p.id, quantity: 1 }] });
    await sql`UPDATE carts SET updated_at = now() - interval '30 days 1 minute' WHERE id = ${old.id}`.execute(
      app.database.db,
    );
    expect((await carts.get(old.id)).statusCode).toBe(404);
    expect((await carts.addItem(old.id, { productId: p.id, quantity: 1 })).statusCode).toBe(404);
    expect((await carts.complete(old.id)).statusCode).toBe(404);
    const { startBackgroundWorker } = await import('../../src/worker.js');
    const worker = startBackgroundWorker({
      config: app.config,
      db: app.database.db,
      pool: app.database.pool,
      logger: (await import('pino')).default({ level: 'silent' }),
    });
    const left = async () =>
      (
        await sql<{ id: string }>`SELECT id FROM carts WHERE id IN (${old.id}, ${fresh.id})`.execute(
          app.database.db,
        )
      ).rows.map((r) => r.id);
    const lines = async () =>
      Number(
        (
          await sql<{ n: string }>`SELECT count(*) AS n FROM cart_items WHERE cart_id = ${old.id}`.execute(
            app.database.db,
          )
        ).rows[0]?.n,
      );
    try {
      for (let i = 0; (await left()).includes(old.id); i++) {
        if (i > 200) throw new Error('the expired cart was not deleted');
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      await worker.stop();
    }
    expect(await left()).toEqual([fresh.id]);
    expect(await lines()).toBe(0);
    expect((await carts.get(fresh.id)).statusCode).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  it('lists every status the cart endpoints answered in this file', async () => {
    const doc = (await shop.get('/openapi.json')).json() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const missing = [...seen].filter((entry) => {
      const [method = '', path = '', status = ''] = entry.split(' ');
      return !doc.paths[path]?.[method]?.responses[status];
    });
    expect(missing).toEqual([]);
    // The answers this file provokes cover every status of every cart operation but 401/403/429
    // (carts-session.test.ts), 413 and 415 (the platform's, on any body).
    expect(seen.size).toBeGreaterThan(20);
  });
});
