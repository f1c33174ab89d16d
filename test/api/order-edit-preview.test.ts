import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, eventsOf, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder, setPricing } from '../helpers/order-factories.js';
import { createTaxRegion, setProductFacts } from '../helpers/region-factories.js';

/**
 * POST /api/v1/orders/{id}/edit-items with `dry_run: true`: the edit computed by the same code and
 * rolled back. What it answers is what the real edit then saves (retaxed at the order's 19 %), and
 * nothing of the order, its stock, its events, its history or its ETag moves. Amounts by hand.
 */
let app: TestApp;
let api: Client;
let storeId: string;
let mugId: string;
let bookId: string;
const COUPON = 'FIVEOFF';
const DE = { line1: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country: 'DE' };

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  api = client(app, store.key);
  await setPricing(app, storeId, { shipping_flat_rate: 500, tax_rate_bps: 0 });
  await createTaxRegion({ api }, { country: 'DE', name: 'VAT', rate: '19', shipping_taxable: true });
  mugId = (await createProduct(api, { name: 'Mug', price: '20.00', inventory: 50_000 })).id;
  bookId = (await createProduct(api, { name: 'Book', price: '10.00', inventory: 50_000 })).id;
  await setProductFacts(api, bookId, { taxable: false });
  const coupon = await api.post('/api/v1/discounts', { code: COUPON, type: 'fixed_amount', value: '5.00' });
  expect(coupon.statusCode, coupon.body).toBe(201);
});
afterAll(() => app.close());

/** 2 mugs (taxable) and a book (not), 5.00 off, 5.00 shipping (taxable), paid, shipped to Germany. */
async function paidOrder() {
  const order = await createOrder(api, {
    items: [
      { product_id: mugId, quantity: 2 },
      { product_id: bookId, quantity: 1 },
    ],
    coupon_code: COUPON,
    shipping_address: DE,
    mark_paid: true,
  });
  // The discount spread 4.00 / 1.00: 19 % of 36.00 (6.84) and of the shipping (0.95).
  expect(order).toMatchObject({ subtotal: 50, tax_amount: 7.79, total: 57.79, payment_status: 'paid' });
  return order as { id: string; line_items: { id: string }[] };
}

const edit = (id: string, body: unknown, etag?: string) =>
  api.post(`/api/v1/orders/${id}/edit-items`, body, etag ? { 'if-match': etag } : {});

/** Everything the preview must leave as it was: the order and its version, stock, events, history. */
async function stateOf(orderId: string) {
  const order = await api.get(`/api/v1/orders/${orderId}`);
  const stock = async (id: string) => (await api.get(`/api/v1/inventory/${id}`)).json().data.inventory;
  return {
    order: order.json().data,
    etag: order.headers.etag,
    stock: [await stock(mugId), await stock(bookId)],
    events: await eventsOf(app.database.db, storeId),
    timeline: (await api.get(`/api/v1/orders/${orderId}/timeline`)).json().data,
  };
}

/** An order's amounts without what a save itself stamps (its time) or invents (new lines' ids). */
function comparable(order: Record<string, unknown>) {
  const {
    updated_at: _,
    line_items,
    ...rest
  } = order as { updated_at: string; line_items: { id: string }[] };
  return { ...rest, line_items: line_items.map(({ id: __, ...line }) => line) };
}

describe('edit-items with dry_run', () => {
  it('answers the retaxed order the real edit then saves, and changes nothing itself', async () => {
    const order = await paidOrder();
    const before = await stateOf(order.id);
    const body = {
      update_quantity: [{ item_id: order.line_items[0]?.id, new_quantity: 4 }],
      add: [{ product_id: bookId, name: 'Book', quantity: 1, price: '10.00' }],
    };

    const preview = await edit(order.id, { ...body, dry_run: true }, before.etag as string);
    expect(preview.statusCode, preview.body).toBe(200);
    // The order's version is still the one the preview was asked on: no new ETag is handed out.
    expect(preview.headers.etag).toBeUndefined();
    const previewed = preview.json().data;
    // 80.00 of mugs and 20.00 of books, 5.00 off spread 4.00 / 0.50 / 0.50: 19 % of 76.00 (14.44)
    // and of the shipping (0.95) = 15.39, where freezing the tax would have kept 7.79.
    expect(previewed).toMatchObject({
      dry_run: true,
      old_total: 57.79,
      new_total: 115.39,
      price_difference: 57.6,
      subtotal: 100,
      discount_amount: 5,
      total: 115.39,
    });
    expect(previewed.order).toMatchObject({
      id: order.id,
      subtotal: 100,
      discount_amount: 5,
      shipping_amount: 5,
      tax_amount: 15.39,
      tax_lines: [{ name: 'VAT', rate: '19', amount: 15.39 }],
      total: 115.39,
      amount_paid: 57.79,
      balance_due: 57.6,
      payment_status: 'partially_paid',
    });
    expect(await stateOf(order.id)).toEqual(before);

    // The same edit for real, on the same version: it saves what the preview showed.
    const saved = await edit(order.id, body, before.etag as string);
    expect(saved.statusCode, saved.body).toBe(200);
    const { dry_run: _, order: wouldBe, ...seedFields } = previewed;
    const strip = (d: { line_items: { id: string }[] }) => ({
      ...d,
      line_items: d.line_items.map(({ id: __, ...l }) => l),
    });
    expect(strip(saved.json().data)).toEqual(strip(seedFields));
    const after = await stateOf(order.id);
    expect(comparable(after.order)).toEqual(comparable(wouldBe));
    expect(after.etag).not.toBe(before.etag);
    expect(after.stock).toEqual([before.stock[0] - 2, before.stock[1] - 1]);
    expect(after.events.length).toBe(before.events.length + 1);
    expect(after.timeline.length).toBe(before.timeline.length + 1);
  });

  it('refuses what the real edit refuses, with the same answer, and leaves everything as it was', async () => {
    const order = await paidOrder();
    const cancelled = await paidOrder();
    expect((await api.post(`/api/v1/orders/${cancelled.id}/cancel`, {})).statusCode).toBe(200);
    const line = order.line_items[0]?.id;
    const before = await stateOf(order.id);
    const cases: [string, unknown, string?][] = [
      [order.id, {}],
      [order.id, { update_quantity: [{ item_id: line, new_quantity: 0 }] }],
      [order.id, { remove: [crypto.randomUUID()] }],
      [order.id, { add: [{ product_id: mugId, name: 'Mug', quantity: 1, price: '-1' }] }],
      [order.id, { add: [{ product_id: mugId, name: 'Mug', quantity: 1, price: '99999999999999' }] }],
      [order.id, { update_quantity: [{ item_id: line, new_quantity: 100_000 }] }],
      [order.id, { update_quantity: [{ item_id: line, new_quantity: 3 }] }, '"stale"'],
      [cancelled.id, { update_quantity: [{ item_id: cancelled.line_items[0]?.id, new_quantity: 3 }] }],
      [crypto.randomUUID(), { remove: [line] }],
    ];
    for (const [id, body, etag] of cases) {
      const real = await edit(id, body, etag);
      const preview = await edit(id, { ...(body as object), dry_run: true }, etag);
      expect(real.statusCode, real.body).toBeGreaterThanOrEqual(400);
      expect([preview.statusCode, preview.json()]).toEqual([real.statusCode, real.json()]);
    }
    expect(await stateOf(order.id)).toEqual(before);
    // The flag itself is checked as any field; a read-only key may not preview either.
    const notBoolean = await edit(order.id, { remove: [line], dry_run: 'yes' });
    expect(notBoolean.statusCode).toBe(400);
    expect(notBoolean.json().error.details.map((d: { field: string }) => d.field)).toContain('dry_run');
    const reader = await app.services.stores.createApiKey(storeId, { scopes: ['orders:read'] });
    const forbidden = await client(app, reader.key).post(`/api/v1/orders/${order.id}/edit-items`, {
      remove: [line],
      dry_run: true,
    });
    expect(forbidden.statusCode).toBe(403);
  });

  it("another store's order is not found, previewed or not", async () => {
    const order = await paidOrder();
    const other = await createStoreWithKey(app);
    const res = await client(app, other.key).post(`/api/v1/orders/${order.id}/edit-items`, {
      update_quantity: [{ item_id: order.line_items[0]?.id, new_quantity: 3 }],
      dry_run: true,
    });
    expect(res.statusCode).toBe(404);
  });

  it('any change of quantities: the preview is what the edit saves (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        async (mugs, books, removeBook) => {
          const order = await paidOrder();
          const [mug, book] = order.line_items;
          const body = {
            update_quantity: [
              { item_id: mug?.id, new_quantity: mugs },
              ...(removeBook ? [] : [{ item_id: book?.id, new_quantity: books }]),
            ],
            ...(removeBook ? { remove: [book?.id] } : {}),
          };
          const preview = await edit(order.id, { ...body, dry_run: true });
          expect(preview.statusCode, preview.body).toBe(200);
          const saved = await edit(order.id, body);
          expect(saved.statusCode, saved.body).toBe(200);
          const after = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
          expect(comparable(after)).toEqual(comparable(preview.json().data.order));
          // The tax follows the lines: the sum of its lines, the mugs' share at 19 % plus shipping's.
          expect(after.tax_lines).toEqual([{ name: 'VAT', rate: '19', amount: after.tax_amount }]);
        },
      ),
      { numRuns: 12 },
    );
  });
});
