import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createOrder, setPricing } from '../helpers/order-factories.js';

/**
 * Contract §12, analytics: `totals.shipping`, `totals.tax` (and the previous period's) and
 * `tax_by_region`, on a history with the cases that move them: orders in two states and a country,
 * a cancellation, a refund and an edit (retaxed at the order's recorded rate). Orders are placed
 * through the storefront checkout of a store with zones and tax regions; each figure is checked
 * against a recomputation from the order rows and against the amounts worked by hand. The random
 * history is in analytics.test.ts.
 */

let app: TestApp;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
});
afterAll(() => app.close());

const unique = () => randomBytes(4).toString('hex');
const minor = (amount: number) => Math.round(amount * 100);

const ADDRESSES = {
  CA: { line1: '1 Main St', city: 'Los Angeles', region: 'CA', postalCode: '90001', country: 'US' },
  NY: { line1: '2 Broadway', city: 'New York', region: 'NY', postalCode: '10001', country: 'US' },
  TX: { line1: '3 Elm St', city: 'Austin', region: 'TX', postalCode: '73301', country: 'US' },
  DE: { line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
};

/**
 * A UTC store selling across regions, with an all-scopes key and a $10.00 mug: US shipping $5.00,
 * EU $10.00; sales tax in California (7.25 %) and New York (4 %), none in Texas; VAT in Germany
 * (19 %, shipping taxed). Without `regions`, a store as before §12.
 */
async function shop(regions = true) {
  const store = await app.services.stores.createStore({
    slug: `tx-${unique()}`,
    name: 'Taxes',
    timezone: 'UTC',
  });
  const { key } = await app.services.stores.createApiKey(store.id, { scopes: 'all' });
  const api = client(app, key);
  const product = await createProduct(api, { name: `Mug ${unique()}`, price: '10.00', inventory: 1000 });
  const writes = !regions
    ? []
    : [
        api.post('/api/v1/shipping-zones', {
          name: 'US',
          countries: ['US'],
          rates: [{ name: 'Ground', price: '5.00' }],
        }),
        api.post('/api/v1/shipping-zones', {
          name: 'EU',
          countries: ['DE'],
          rates: [{ name: 'Post', price: '10.00' }],
        }),
        api.post('/api/v1/tax-regions', { country: 'US', region: 'US-CA', name: 'Sales tax', rate: '7.25' }),
        api.post('/api/v1/tax-regions', { country: 'US', region: 'NY', name: 'Sales tax', rate: '4' }),
        api.post('/api/v1/tax-regions', { country: 'DE', name: 'VAT', rate: '19', shipping_taxable: true }),
      ];
  for (const res of await Promise.all(writes)) expect(res.statusCode, res.body).toBe(201);
  return { storeId: store.id, slug: store.slug, api, product };
}

/** A paid storefront checkout of `quantity` mugs to `to`. */
async function orderIn(s: Awaited<ReturnType<typeof shop>>, quantity: number, to: keyof typeof ADDRESSES) {
  const res = await client(app).post(`/api/storefront/${s.slug}/checkout`, {
    email: `buyer.${unique()}@example.com`,
    items: [{ productId: s.product.id, quantity }],
    shippingAddress: ADDRESSES[to],
    paymentMethod: 'test_card',
    cardToken: 'tok_visa',
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string };
}

/** The figures recomputed from the order rows: orders not cancelled, today (UTC). */
async function recomputed(storeId: string) {
  const orders = await app.database.db
    .selectFrom('orders')
    .select(['status', 'shipping_amount', 'tax_amount', 'tax_lines'])
    .where('store_id', '=', storeId)
    .execute();
  const counted = orders.filter((o) => o.status !== 'cancelled');
  const places = new Map<string, { country: string | null; region: string | null; amount: number }>();
  for (const o of counted)
    for (const l of o.tax_lines) {
      const key = `${l.country}|${l.region}`;
      const place = places.get(key) ?? { country: l.country, region: l.region, amount: 0 };
      place.amount += l.amount;
      places.set(key, place);
    }
  return {
    shipping: counted.reduce((sum, o) => sum + o.shipping_amount, 0),
    tax: counted.reduce((sum, o) => sum + o.tax_amount, 0),
    tax_by_region: [...places.values()].sort((a, b) => b.amount - a.amount),
  };
}

async function report(api: Client, query = '') {
  const res = await api.get(`/api/v1/analytics${query}`);
  expect(res.statusCode, res.body).toBe(200);
  const data = res.json().data;
  return {
    shipping: minor(data.totals.shipping),
    tax: minor(data.totals.tax),
    refunds: minor(data.totals.refunds),
    previous: { shipping: minor(data.previous_period.shipping), tax: minor(data.previous_period.tax) },
    tax_by_region: (data.tax_by_region as { country: string; region: string | null; amount: number }[]).map(
      (p) => ({ ...p, amount: minor(p.amount) }),
    ),
  };
}

describe('analytics: shipping, tax and tax by region (§12)', () => {
  it('counts the shipping and tax of orders not cancelled, per place, through a refund and an edit', async () => {
    const s = await shop();
    // Two mugs to California: $20.00 + $5.00 shipping + $1.45 tax (7.25 %).
    const california = await orderIn(s, 2, 'CA');
    // One mug to New York ($0.40), edited below to three: $1.20 at the recorded 4 %.
    const newYork = await orderIn(s, 1, 'NY');
    // One mug to Germany: $10.00 shipping, and VAT on goods and shipping: 19 % of $20.00 = $3.80.
    await orderIn(s, 1, 'DE');
    // Texas: shipping, no tax region, no tax.
    await orderIn(s, 1, 'TX');
    // Cancelled: its shipping, tax and place leave every figure.
    const cancelled = await orderIn(s, 4, 'CA');
    const cancel = await s.api.post(`/api/v1/orders/${cancelled.id}/cancel`, {});
    expect(cancel.statusCode, cancel.body).toBe(200);

    // A refund is money back, counted in `refunds`; it does not take shipping or tax back.
    const refund = await s.api.post(`/api/v1/orders/${california.id}/refunds`, { amount: 7 });
    expect(refund.statusCode, refund.body).toBe(201);
    const line = (await s.api.get(`/api/v1/orders/${newYork.id}`)).json().data.line_items[0];
    const edit = await s.api.post(`/api/v1/orders/${newYork.id}/edit-items`, {
      update_quantity: [{ item_id: line.id, new_quantity: 3 }],
    });
    expect(edit.statusCode, edit.body).toBe(200);

    const figures = await report(s.api);
    const expected = await recomputed(s.storeId);
    expect(figures).toMatchObject({ shipping: expected.shipping, tax: expected.tax, refunds: 700 });
    expect(figures.tax_by_region).toEqual(expected.tax_by_region);
    // Worked by hand.
    expect(figures).toMatchObject({
      shipping: 500 + 500 + 1000 + 500,
      tax: 145 + 120 + 380,
      previous: { shipping: 0, tax: 0 },
    });
    expect(figures.tax_by_region).toEqual([
      { country: 'DE', region: null, amount: 380 },
      { country: 'US', region: 'US-CA', amount: 145 },
      { country: 'US', region: 'US-NY', amount: 120 },
    ]);

    // Yesterday: nothing.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect(await report(s.api, `?from=${yesterday}&to=${yesterday}`)).toMatchObject({
      shipping: 0,
      tax: 0,
      tax_by_region: [],
    });

    // A rebuild from the orders keeps the same figures (the rebuild path of a timezone change).
    await sql`SELECT analytics_rebuild(${s.storeId})`.execute(app.database.db);
    expect(await report(s.api)).toEqual(figures);
  });

  it('lists places by amount, then country and region (country-wide first), and keeps a place taxed at 0', async () => {
    // A store without zones or tax regions (flat rate, store-wide tax): orders without an address.
    const s = await shop(false);
    await setPricing(app, s.storeId, { shipping_flat_rate: 500, tax_rate_bps: 1000 });
    // Tax lines as an order may hold them (a state's line of 0 included), written behind the API:
    // the triggers follow any write of the order.
    const places = [
      [
        { country: 'US', region: 'US-OR', amount: 0 },
        { country: 'US', region: 'US-CA', amount: 100 },
      ],
      [{ country: 'DE', region: null, amount: 100 }],
      [{ country: 'AT', region: null, amount: 100 }],
      [{ country: 'US', region: null, amount: 100 }],
    ];
    for (const lines of places) {
      const order = await createOrder(s.api, { items: [{ product_id: s.product.id, quantity: 1 }] });
      await app.database.db
        .updateTable('orders')
        .set({ tax_lines: JSON.stringify(lines.map((l) => ({ name: 'Tax', rate: '10', ...l }))) })
        .where('id', '=', order.id)
        .execute();
    }
    const { tax_by_region } = await report(s.api);
    expect(tax_by_region).toEqual([
      { country: 'AT', region: null, amount: 100 },
      { country: 'DE', region: null, amount: 100 },
      { country: 'US', region: null, amount: 100 },
      { country: 'US', region: 'US-CA', amount: 100 },
      { country: 'US', region: 'US-OR', amount: 0 },
    ]);
  });

  it("reports only the store's own shipping, tax and places", async () => {
    const a = await shop();
    const b = await shop();
    await orderIn(a, 1, 'DE');
    expect(await report(b.api)).toMatchObject({ shipping: 0, tax: 0, tax_by_region: [] });
    expect(await report(a.api)).toMatchObject({
      shipping: 1000,
      tax: 380,
      tax_by_region: [{ country: 'DE', region: null, amount: 380 }],
    });
  });
});
