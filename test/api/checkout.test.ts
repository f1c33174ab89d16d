import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  eventsOf,
  sizedProduct,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody, setPricing } from '../helpers/order-factories.js';

let app: TestApp;
let api: Client;
let shop: Client;
let storeId: string;
let slug: string;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  slug = store.store.slug;
  api = client(app, store.key);
  shop = client(app);
  // $5 flat shipping, free from $100; 10 % tax.
  await setPricing(app, storeId, {
    shipping_flat_rate: 500,
    free_shipping_threshold: 10000,
    tax_rate_bps: 1000,
  });
});
afterAll(() => app.close());

const checkout = (body: unknown, headers?: Record<string, string>) =>
  shop.post(`/api/storefront/${slug}/checkout`, body, headers);
const stockOf = async (id: string) => (await api.get(`/api/v1/inventory/${id}`)).json().data.inventory;

describe('POST /api/storefront/{slug}/checkout/quote', () => {
  it('prices the cart with shipping and tax and creates nothing', async () => {
    const p = await createProduct(api, { price: '12.50', inventory: 10 });
    const res = await shop.post(
      `/api/storefront/${slug}/checkout/quote`,
      checkoutBody([{ productId: p.id, quantity: 2 }]),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      currency: 'USD',
      subtotal: 25,
      discountAmount: 0,
      shippingAmount: 5,
      taxAmount: 2.5,
      total: 32.5,
      couponCode: null,
      lineItems: [{ productId: p.id, quantity: 2, price: 12.5, total: 25 }],
    });
    expect(await stockOf(p.id)).toBe(10);
    expect((await api.get('/api/v1/orders')).json().meta.pagination.total).toBe(0);
  });

  it('ships free at the threshold', async () => {
    const p = await createProduct(api, { price: '50.00', inventory: 10 });
    const res = await shop.post(
      `/api/storefront/${slug}/checkout/quote`,
      checkoutBody([{ productId: p.id, quantity: 2 }]),
    );
    expect(res.json().data).toMatchObject({ subtotal: 100, shippingAmount: 0, taxAmount: 10, total: 110 });
  });
});

describe('POST /api/storefront/{slug}/checkout', () => {
  it('manual payment: a pending, unpaid order; stock taken; order.created only', async () => {
    const p = await createProduct(api, { price: '10.00', inventory: 5, name: 'Mug' });
    const before = (await eventsOf(app.database.db, storeId)).length;
    const res = await checkout(checkoutBody([{ productId: p.id, quantity: 2 }]));
    expect(res.statusCode).toBe(201);
    const order = res.json().data;
    expect(order).toMatchObject({
      status: 'pending',
      paymentStatus: 'unpaid',
      fulfillmentStatus: 'unfulfilled',
      subtotal: 20,
      shippingAmount: 5,
      taxAmount: 2,
      total: 27,
      amountPaid: 0,
      balanceDue: 27,
      paymentMethod: 'manual',
      lineItems: [{ productId: p.id, name: 'Mug', quantity: 2, price: 10, total: 20 }],
      shippingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' },
    });
    expect(order.orderNumber).toMatch(/^\d+$/);
    expect(await stockOf(p.id)).toBe(3);
    const events = (await eventsOf(app.database.db, storeId)).slice(before);
    expect(events.map((e) => e.name)).toEqual(['order.created']);
    expect(events[0]?.data).toEqual({
      orderId: order.id,
      orderNumber: order.orderNumber,
      customerEmail: order.email,
      customerName: 'Ada Lovelace',
      total: 27,
      itemCount: 2,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it('test_card tok_visa: paid and processing, order.created then order.paid with paymentMethod', async () => {
    const p = await createProduct(api, { price: '10.00', inventory: 5 });
    const before = (await eventsOf(app.database.db, storeId)).length;
    const res = await checkout(
      checkoutBody([{ productId: p.id, quantity: 1 }], { paymentMethod: 'test_card', cardToken: 'tok_visa' }),
    );
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({
      status: 'processing',
      paymentStatus: 'paid',
      amountPaid: 16,
      balanceDue: 0,
    });
    const events = (await eventsOf(app.database.db, storeId)).slice(before);
    expect(events.map((e) => e.name)).toEqual(['order.created', 'order.paid']);
    expect(events[1]?.data).toMatchObject({ paymentMethod: 'test_card', total: 16, itemCount: 1 });
  });

  it('tok_decline is 402 and leaves no order, no stock change, no customer, no event', async () => {
    const p = await createProduct(api, { price: '10.00', inventory: 5 });
    const orders = (await api.get('/api/v1/orders')).json().meta.pagination.total;
    const customers = (await api.get('/api/v1/customers')).json().meta.pagination.total;
    const events = (await eventsOf(app.database.db, storeId)).length;
    const res = await checkout(
      checkoutBody([{ productId: p.id, quantity: 1 }], {
        paymentMethod: 'test_card',
        cardToken: 'tok_decline',
      }),
    );
    expect(res.statusCode).toBe(402);
    expect(res.json().error.code).toBe('payment_declined');
    expect(await stockOf(p.id)).toBe(5);
    expect((await api.get('/api/v1/orders')).json().meta.pagination.total).toBe(orders);
    expect((await api.get('/api/v1/customers')).json().meta.pagination.total).toBe(customers);
    expect((await eventsOf(app.database.db, storeId)).length).toBe(events);
  });

  it('refuses bad input with 400 and the field, never 5xx', async () => {
    const p = await createProduct(api, { inventory: 5 });
    const draft = await createProduct(api, { inventory: 5, status: 'draft' });
    const sized = await createProduct(api, sizedProduct({ S: 1, M: 1 }));
    const cases: [unknown, string][] = [
      [
        checkoutBody([{ productId: '00000000-0000-7000-8000-000000000000', quantity: 1 }]),
        'items.0.productId',
      ],
      [checkoutBody([{ productId: draft.id, quantity: 1 }]), 'items.0.productId'],
      [checkoutBody([{ productId: sized.id, quantity: 1 }]), 'items.0.variantId'],
      [
        checkoutBody([{ productId: p.id, variantId: sized.variants[0]?.id, quantity: 1 }]),
        'items.0.variantId',
      ],
      [checkoutBody([{ productId: p.id, quantity: 0 }]), 'items.0.quantity'],
      [checkoutBody([]), 'items'],
      [checkoutBody([{ productId: p.id, quantity: 1 }], { email: 'not-an-email' }), 'email'],
      [checkoutBody([{ productId: p.id, quantity: 1 }], { paymentMethod: 'bitcoin' }), 'paymentMethod'],
      [checkoutBody([{ productId: p.id, quantity: 1 }], { paymentMethod: 'test_card' }), 'cardToken'],
      [checkoutBody([{ productId: p.id, quantity: 1 }], { couponCode: 'NOPE' }), 'couponCode'],
      [checkoutBody([{ productId: p.id, quantity: 1 }], { extra: true }), 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await checkout(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect(await stockOf(p.id)).toBe(5);
  });

  it('short stock is 409 insufficient_stock and nothing changes', async () => {
    const p = await createProduct(api, { inventory: 2 });
    const q = await createProduct(api, { inventory: 5 });
    const res = await checkout(
      checkoutBody([
        { productId: q.id, quantity: 1 },
        { productId: p.id, quantity: 3 },
      ]),
    );
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('insufficient_stock');
    expect(await stockOf(p.id)).toBe(2);
    expect(await stockOf(q.id)).toBe(5);
  });

  it('variant stock moves with the product total', async () => {
    const p = await createProduct(api, sizedProduct({ S: 3, M: 4 }));
    const m = p.variants[1];
    const res = await checkout(checkoutBody([{ productId: p.id, variantId: m?.id as string, quantity: 2 }]));
    expect(res.statusCode).toBe(201);
    expect(res.json().data.lineItems[0]).toMatchObject({ variantId: m?.id, variantTitle: 'M', price: 22.5 });
    expect(await stockOf(p.id)).toBe(5);
    expect((await api.get(`/api/v1/inventory/${m?.id}?type=variant`)).json().data.inventory).toBe(2);
  });

  it('finds the customer by e-mail, case-insensitively, and links the orders', async () => {
    const p = await createProduct(api, { inventory: 10, price: '10.00' });
    const email = `Repeat.${Date.now()}@Example.com`;
    await checkout(
      checkoutBody([{ productId: p.id, quantity: 1 }], {
        email,
        paymentMethod: 'test_card',
        cardToken: 'tok_visa',
      }),
    );
    await checkout(checkoutBody([{ productId: p.id, quantity: 1 }], { email: email.toLowerCase() }));
    const found = (await api.get(`/api/v1/customers?q=${encodeURIComponent(email.toLowerCase())}`)).json()
      .data;
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ email: email.toLowerCase(), orders_count: 2, total_spent: 16 });
    const orders = (await api.get(`/api/v1/orders?customer_id=${found[0].id}`)).json();
    expect(orders.meta.pagination.total).toBe(2);
  });

  it('Idempotency-Key: a retry returns the first order and creates nothing', async () => {
    const p = await createProduct(api, { inventory: 10 });
    const body = checkoutBody([{ productId: p.id, quantity: 1 }]);
    const first = await checkout(body, { 'idempotency-key': `k-${Date.now()}` });
    const key = `k2-${Date.now()}`;
    const a = await checkout(body, { 'idempotency-key': key });
    const b = await checkout(body, { 'idempotency-key': key });
    expect(first.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.json().data.id).toBe(a.json().data.id);
    expect(await stockOf(p.id)).toBe(8);
    const other = await checkout({ ...body, firstName: 'Other' }, { 'idempotency-key': key });
    expect(other.statusCode).toBe(409);
  });

  it('unknown store is 404', async () => {
    const res = await shop.post('/api/storefront/no-such-store/checkout', checkoutBody([]));
    expect(res.statusCode).toBe(404);
  });
});

describe('concurrency', () => {
  it('200 parallel checkouts on stock 50: exactly 50 orders, stock 0, one out-of-stock event', async () => {
    const p = await createProduct(api, { inventory: 50, name: 'Last units' });
    const results = await Promise.all(
      Array.from({ length: 200 }, () => checkout(checkoutBody([{ productId: p.id, quantity: 1 }]))),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(50);
    expect(codes.filter((c) => c === 409)).toHaveLength(150);
    expect(await stockOf(p.id)).toBe(0);
    const events = await eventsOf(app.database.db, storeId);
    const outOfStock = events.filter(
      (e) =>
        e.name === 'product.out_of_stock' && (e.data as { productName: string }).productName === 'Last units',
    );
    expect(outOfStock).toHaveLength(1);
    const numbers = results.filter((r) => r.statusCode === 201).map((r) => Number(r.json().data.orderNumber));
    expect(new Set(numbers).size).toBe(50);
  });

  it('a coupon with usage_limit 10 under 100 parallel checkouts is used exactly 10 times', async () => {
    const p = await createProduct(api, { inventory: 1000, price: '10.00' });
    const d = await api.post('/api/v1/discounts', {
      code: `TEN${Date.now()}`,
      type: 'percentage',
      value: '10',
      usage_limit: 10,
    });
    expect(d.statusCode).toBe(201);
    const code = d.json().data.code;
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        checkout(checkoutBody([{ productId: p.id, quantity: 1 }], { couponCode: code })),
      ),
    );
    const ok = results.filter((r) => r.statusCode === 201);
    expect(ok).toHaveLength(10);
    for (const r of ok) expect(r.json().data).toMatchObject({ couponCode: code, discountAmount: 1 });
    for (const r of results.filter((x) => x.statusCode !== 201)) expect(r.statusCode).toBeLessThan(500);
    expect((await api.get(`/api/v1/discounts/${d.json().data.id}`)).json().data.usage_count).toBe(10);
    expect(await stockOf(p.id)).toBe(990);
  });

  // Whether the evaluation saw the limit reached or the counting UPDATE did must not show: the
  // answer is the same 400 naming the field either way (docs/decisions.md, "Coupon used up").
  it('a used-up coupon is always 400 invalid_request on couponCode, whatever the timing', async () => {
    const p = await createProduct(api, { inventory: 1000, price: '10.00' });
    const d = await api.post('/api/v1/discounts', {
      code: `ONE${Date.now()}`,
      type: 'percentage',
      value: '10',
      usage_limit: 1,
    });
    const code = d.json().data.code;
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        checkout(checkoutBody([{ productId: p.id, quantity: 1 }], { couponCode: code })),
      ),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(1);
    const refusals = results
      .filter((r) => r.statusCode !== 201)
      .map((r) => ({ status: r.statusCode, code: r.json().error.code, details: r.json().error.details }));
    expect(refusals).toHaveLength(19);
    const expected = {
      status: 400,
      code: 'invalid_request',
      details: [{ field: 'couponCode', message: 'its usage limit has been reached' }],
    };
    expect(refusals).toEqual(Array.from({ length: 19 }, () => expected));
    expect((await api.get(`/api/v1/discounts/${d.json().data.id}`)).json().data.usage_count).toBe(1);
    expect(await stockOf(p.id)).toBe(999);
  });

  it('a once-per-customer coupon used at once by one buyer: one order, the rest 400 on couponCode', async () => {
    const p = await createProduct(api, { inventory: 1000, price: '10.00' });
    const d = await api.post('/api/v1/discounts', {
      code: `ONCE${Date.now()}`,
      type: 'percentage',
      value: '10',
      once_per_customer: true,
    });
    const code = d.json().data.code;
    const email = `once.${Date.now()}@example.com`;
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        checkout(checkoutBody([{ productId: p.id, quantity: 1 }], { couponCode: code, email })),
      ),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(1);
    const refusals = results
      .filter((r) => r.statusCode !== 201)
      .map((r) => ({ status: r.statusCode, code: r.json().error.code, details: r.json().error.details }));
    expect(refusals).toEqual(
      Array.from({ length: 9 }, () => ({
        status: 400,
        code: 'invalid_request',
        details: [{ field: 'couponCode', message: 'it has already been used by this customer' }],
      })),
    );
  });
});

describe('Idempotency-Key robustness', () => {
  it('a failure to store the answer never changes the answer the buyer gets', async () => {
    const p = await createProduct(api, { inventory: 10 });
    const key = `unsaved-${Date.now()}`;
    // Makes the UPDATE that stores the response fail, as a database hiccup would.
    await sql`CREATE OR REPLACE FUNCTION refuse_store() RETURNS trigger AS $$
      BEGIN IF NEW.key LIKE 'unsaved-%' AND NEW.status_code IS NOT NULL THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`.execute(
      app.database.db,
    );
    await sql`CREATE TRIGGER refuse_store BEFORE UPDATE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION refuse_store()`.execute(
      app.database.db,
    );
    try {
      const res = await checkout(checkoutBody([{ productId: p.id, quantity: 1 }]), {
        'idempotency-key': key,
      });
      expect(res.statusCode).toBe(201);
      expect(res.json().data.orderNumber).toMatch(/^\d+$/);
    } finally {
      await sql`DROP TRIGGER refuse_store ON idempotency_keys`.execute(app.database.db);
      await sql`DROP FUNCTION refuse_store()`.execute(app.database.db);
    }
  });
});
