import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, sizedProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder, setPricing } from '../helpers/order-factories.js';

let app: TestApp;
let api: Client;
let storeId: string;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  api = client(app, store.key);
  await setPricing(app, storeId, { shipping_flat_rate: 500, tax_rate_bps: 0 });
});
afterAll(() => app.close());

const stockOf = async (id: string, type = 'product') =>
  (await api.get(`/api/v1/inventory/${id}?type=${type}`)).json().data.inventory;
const edit = (orderId: string, body: unknown) => api.post(`/api/v1/orders/${orderId}/edit-items`, body);

describe('POST /api/v1/orders/{id}/edit-items', () => {
  it('updates, adds and removes in one go: the seed response, stock moved by the deltas', async () => {
    const a = await createProduct(api, { price: '10.00', inventory: 20 });
    const b = await createProduct(api, { price: '4.00', inventory: 20 });
    const c = await createProduct(api, { price: '1.50', inventory: 20 });
    const order = await createOrder(api, {
      items: [
        { product_id: a.id, quantity: 2 },
        { product_id: b.id, quantity: 1 },
      ],
    });
    const [lineA, lineB] = order.line_items;
    const res = await edit(order.id, {
      update_quantity: [{ item_id: lineA.id, new_quantity: 5 }],
      add: [{ product_id: c.id, name: 'Sticker', quantity: 4, price: 1.25 }],
      remove: [lineB.id],
    });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toEqual({
      id: order.id,
      order_number: Number(order.order_number),
      old_total: 29,
      new_total: 60,
      price_difference: 31,
      subtotal: 55,
      discount_amount: 0,
      total: 60,
      line_items: [
        { id: lineA.id, name: lineA.name, quantity: 5, price: 10, total: 50 },
        { id: expect.any(String), name: 'Sticker', quantity: 4, price: 1.25, total: 5 },
      ],
    });
    expect(typeof data.order_number).toBe('number');
    expect([await stockOf(a.id), await stockOf(b.id), await stockOf(c.id)]).toEqual([15, 20, 16]);
    const after = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
    expect(after).toMatchObject({ subtotal: 55, total: 60, fulfillment_status: 'unfulfilled' });
  });

  it('keeps the discount frozen and moves the payment status with the balance', async () => {
    const p = await createProduct(api, { price: '10.00', inventory: 50 });
    const code = `OFF${Date.now()}`;
    await api.post('/api/v1/discounts', { code, type: 'fixed_amount', value: '3.00' });
    const order = await createOrder(api, {
      items: [{ product_id: p.id, quantity: 2 }],
      coupon_code: code,
      mark_paid: true,
    });
    expect(order).toMatchObject({ discount_amount: 3, total: 22, payment_status: 'paid' });
    const up = await edit(order.id, {
      update_quantity: [{ item_id: order.line_items[0].id, new_quantity: 3 }],
    });
    expect(up.json().data).toMatchObject({
      discount_amount: 3,
      subtotal: 30,
      total: 32,
      price_difference: 10,
    });
    let now = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
    expect(now).toMatchObject({ payment_status: 'partially_paid', balance_due: 10, status: 'processing' });
    const down = await edit(order.id, {
      update_quantity: [{ item_id: order.line_items[0].id, new_quantity: 1 }],
    });
    expect(down.json().data).toMatchObject({ discount_amount: 3, total: 12, price_difference: -20 });
    now = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
    expect(now).toMatchObject({ payment_status: 'refund_due', balance_due: -10 });
  });

  it('moves variant and product levels together', async () => {
    const p = await createProduct(api, sizedProduct({ S: 5, M: 5 }));
    const [s, m] = p.variants;
    const order = await createOrder(api, { items: [{ product_id: p.id, variant_id: s?.id, quantity: 2 }] });
    const res = await edit(order.id, {
      update_quantity: [{ item_id: order.line_items[0].id, new_quantity: 1 }],
      add: [
        {
          product_id: p.id,
          variant_id: m?.id,
          name: p.name,
          variant_title: 'M',
          quantity: 3,
          price: '22.50',
        },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(await stockOf(s?.id as string, 'variant')).toBe(4);
    expect(await stockOf(m?.id as string, 'variant')).toBe(2);
    expect(await stockOf(p.id)).toBe(6);
  });

  it('an added line carries the SKU of its variant, else of its product, as checkout lines do', async () => {
    const sized = await createProduct(api, sizedProduct({ S: 5, M: 5 }, { sku: 'TEE' }));
    const plain = await createProduct(api, { sku: 'MUG-1', inventory: 5 });
    const [s, m] = sized.variants;
    const order = await createOrder(api, { items: [{ product_id: plain.id, quantity: 1 }] });
    const res = await edit(order.id, {
      add: [
        { product_id: sized.id, variant_id: s?.id, name: sized.name, quantity: 1, price: '20.00' },
        { product_id: sized.id, variant_id: m?.id, name: sized.name, quantity: 1, price: '22.50' },
        { product_id: plain.id, name: plain.name, quantity: 1, price: '10.00' },
      ],
    });
    expect(res.statusCode).toBe(200);
    // The edit answers the seed's response (no SKUs); the order's lines show what was stored.
    // S has a SKU of its own; M has none, so its line takes the product's, as checkout's lines do.
    const stored = (await api.get(`/api/v1/orders/${order.id}`)).json().data.line_items.slice(1);
    expect(stored.map((l: { sku: string | null }) => l.sku)).toEqual([s?.sku, 'TEE', 'MUG-1']);
  });

  it('short stock is 409 insufficient_stock and nothing changes', async () => {
    const p = await createProduct(api, { price: '10.00', inventory: 3 });
    const order = await createOrder(api, { items: [{ product_id: p.id, quantity: 1 }] });
    const res = await edit(order.id, {
      update_quantity: [{ item_id: order.line_items[0].id, new_quantity: 5 }],
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('insufficient_stock');
    expect(await stockOf(p.id)).toBe(2);
    const same = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
    expect(same.line_items[0].quantity).toBe(1);
    expect(same.total).toBe(order.total);
  });

  it('refuses malformed edits with 400 and changes nothing', async () => {
    const p = await createProduct(api, { price: '10.00', inventory: 10 });
    const order = await createOrder(api, { items: [{ product_id: p.id, quantity: 1 }] });
    const line = order.line_items[0].id;
    const bad: unknown[] = [
      {},
      { update_quantity: [], add: [], remove: [] },
      { update_quantity: [{ item_id: line, new_quantity: 0 }] },
      { update_quantity: [{ item_id: '00000000-0000-7000-8000-000000000000', new_quantity: 2 }] },
      { remove: ['nope'] },
      { remove: [line] },
      { update_quantity: [{ item_id: line, new_quantity: 2 }], remove: [line] },
      { add: [{ product_id: '00000000-0000-7000-8000-000000000000', name: 'x', quantity: 1, price: 1 }] },
      { add: [{ product_id: p.id, name: 'x', quantity: 1, price: -1 }] },
      { add: [{ product_id: p.id, name: 'x', quantity: 1 }] },
      { update_quantity: [{ item_id: line, new_quantity: 1.5 }] },
      { surprise: true },
    ];
    for (const body of bad) {
      const res = await edit(order.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    expect(await stockOf(p.id)).toBe(9);
  });

  it('a cancelled order cannot be edited; an unknown order is 404', async () => {
    const p = await createProduct(api, { price: '10.00', inventory: 10 });
    const order = await createOrder(api, { items: [{ product_id: p.id, quantity: 1 }] });
    await api.post(`/api/v1/orders/${order.id}/cancel`, {});
    const res = await edit(order.id, {
      update_quantity: [{ item_id: order.line_items[0].id, new_quantity: 2 }],
    });
    expect(res.statusCode).toBe(409);
    expect((await edit('00000000-0000-7000-8000-000000000000', { remove: ['x'] })).statusCode).toBe(404);
  });

  it('property: stock + ordered quantity is conserved, price_difference = new − old, discount unchanged', async () => {
    const products = await Promise.all(
      [300, 150, 999].map((cents, i) =>
        createProduct(api, { price: (cents / 100).toFixed(2), inventory: 1000, name: `Prop ${i}` }),
      ),
    );
    const code = `PROP${Date.now()}`;
    await api.post('/api/v1/discounts', { code, type: 'percentage', value: '15' });
    const order = await createOrder(api, {
      items: products.map((p) => ({ product_id: p.id, quantity: 2 })),
      coupon_code: code,
    });
    const discount = order.discount_amount;
    const conserved = async () => {
      const current = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
      for (const p of products) {
        const ordered = current.line_items
          .filter((l: { product_id: string }) => l.product_id === p.id)
          .reduce((sum: number, l: { quantity: number }) => sum + l.quantity, 0);
        expect(ordered + (await stockOf(p.id))).toBe(1000);
      }
      return current;
    };
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          updates: fc.array(fc.tuple(fc.nat(10), fc.integer({ min: 1, max: 9 })), { maxLength: 3 }),
          adds: fc.array(
            fc.tuple(fc.nat(2), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 5000 })),
            {
              maxLength: 2,
            },
          ),
          removes: fc.array(fc.nat(10), { maxLength: 2 }),
        }),
        async ({ updates, adds, removes }) => {
          const before = await conserved();
          const lines: { id: string }[] = before.line_items;
          const used = new Set<string>();
          const pick = (i: number) => {
            const line = lines[i % lines.length];
            if (!line || used.has(line.id)) return undefined;
            used.add(line.id);
            return line.id;
          };
          const update_quantity = updates.flatMap(([i, q]) => {
            const id = pick(i);
            return id ? [{ item_id: id, new_quantity: q }] : [];
          });
          let remove = removes.flatMap((i) => {
            const id = pick(i);
            return id ? [id] : [];
          });
          const add = adds.map(([i, q, cents]) => ({
            product_id: products[i % products.length]?.id,
            name: 'added',
            quantity: q,
            price: (cents / 100).toFixed(2),
          }));
          if (remove.length === lines.length && add.length === 0) remove = remove.slice(1);
          if (update_quantity.length + add.length + remove.length === 0) return;
          const res = await edit(order.id, { update_quantity, add, remove });
          expect(res.statusCode, res.body).toBe(200);
          const data = res.json().data;
          expect(data.old_total).toBe(before.total);
          expect(Math.round((data.new_total - data.old_total) * 100)).toBe(
            Math.round(data.price_difference * 100),
          );
          expect(data.discount_amount).toBe(discount);
          const subtotal = data.line_items.reduce(
            (s: number, l: { total: number }) => s + Math.round(l.total * 100),
            0,
          );
          expect(Math.round(data.subtotal * 100)).toBe(subtotal);
          expect(Math.round(data.total * 100)).toBe(Math.max(0, subtotal - Math.round(discount * 100) + 500));
          await conserved();
        },
      ),
      { numRuns: 40 },
    );
  });
});
