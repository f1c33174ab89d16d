import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createOrder, setPricing } from '../helpers/order-factories.js';

/**
 * Contract §12, analytics: `totals.shipping`, `totals.tax` (and the previous period's) and
 * `tax_by_region`, on a scripted history with the cases that move them: two places in one order, a
 * cancellation, a refund and an edit. Each figure is checked against a recomputation from the order
 * rows and against the numbers the scenario implies. The random history is in analytics.test.ts.
 */

let app: TestApp;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
});
afterAll(() => app.close());

const unique = () => randomBytes(4).toString('hex');
const minor = (amount: number) => Math.round(amount * 100);

interface TaxLine {
  name: string;
  rate: string;
  amount: number;
  country: string | null;
  region: string | null;
}

/** A UTC store with $5.00 shipping and 10 % tax, an all-scopes key and a $10.00 product. */
async function shop() {
  const store = await app.services.stores.createStore({
    slug: `tx-${unique()}`,
    name: 'Taxes',
    timezone: 'UTC',
  });
  await setPricing(app, store.id, { shipping_flat_rate: 500, tax_rate_bps: 1000 });
  const { key } = await app.services.stores.createApiKey(store.id, { scopes: 'all' });
  const api = client(app, key);
  const product = await createProduct(api, { name: `Mug ${unique()}`, price: '10.00', inventory: 1000 });
  return { storeId: store.id, api, product };
}

/** An order of `quantity` mugs, paid, whose tax is charged in `places` (its tax split over them in order). */
async function orderIn(
  s: Awaited<ReturnType<typeof shop>>,
  quantity: number,
  places: { country: string; region: string | null; share: number }[],
) {
  const order = await createOrder(s.api, {
    items: [{ product_id: s.product.id, quantity }],
    mark_paid: true,
  });
  const tax = minor(order.tax_amount);
  let left = tax;
  const lines: TaxLine[] = places.map((p, i) => {
    const amount = i === places.length - 1 ? left : Math.round(tax * p.share);
    left -= amount;
    return { name: p.region ? 'State tax' : 'VAT', rate: '10', amount, country: p.country, region: p.region };
  });
  // As checkout records the places of its tax (helper B's pricing): the triggers see the write.
  await app.database.db
    .updateTable('orders')
    .set({ tax_lines: JSON.stringify(lines) })
    .where('id', '=', order.id)
    .execute();
  return order;
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
    // Two mugs to California: $20.00 + $5.00 shipping + $2.00 tax.
    const california = await orderIn(s, 2, [{ country: 'US', region: 'US-CA', share: 1 }]);
    // One mug to New York, edited to three below.
    const newYork = await orderIn(s, 1, [{ country: 'US', region: 'US-NY', share: 1 }]);
    // Canada's federal GST and British Columbia's PST on one order: two places, 40 % and 60 % of $3.00.
    await orderIn(s, 3, [
      { country: 'CA', region: null, share: 0.4 },
      { country: 'CA', region: 'CA-BC', share: 0.6 },
    ]);
    // Cancelled: its shipping, tax and places leave every figure.
    const cancelled = await orderIn(s, 4, [{ country: 'US', region: 'US-TX', share: 1 }]);
    expect((await s.api.post(`/api/v1/orders/${cancelled.id}/cancel`, {})).statusCode).toBe(200);

    // A refund is money back, counted in `refunds`; it does not take shipping or tax back.
    const refund = await s.api.post(`/api/v1/orders/${california.id}/refunds`, { amount: 7 });
    expect(refund.statusCode, refund.body).toBe(201);
    // An edit to three mugs: the order's tax as the edit leaves it (§12: recomputed at the order's rates).
    const line = (await s.api.get(`/api/v1/orders/${newYork.id}`)).json().data.line_items[0];
    const edit = await s.api.post(`/api/v1/orders/${newYork.id}/edit-items`, {
      update_quantity: [{ item_id: line.id, new_quantity: 3 }],
    });
    expect(edit.statusCode, edit.body).toBe(200);
    const edited = (await s.api.get(`/api/v1/orders/${newYork.id}`)).json().data;

    const figures = await report(s.api);
    const expected = await recomputed(s.storeId);
    expect(figures).toMatchObject({ shipping: expected.shipping, tax: expected.tax, refunds: 700 });
    expect(figures.tax_by_region).toEqual(expected.tax_by_region);
    // What the scenario implies: three orders' shipping, $2 + the edited order's + $3 of tax.
    expect(figures).toMatchObject({
      shipping: 1500,
      tax: 200 + minor(edited.tax_amount) + 300,
      previous: { shipping: 0, tax: 0 },
    });
    expect(figures.tax_by_region.map((p) => p.region)).not.toContain('US-TX');
    expect(figures.tax_by_region.find((p) => p.region === 'CA-BC')).toEqual({
      country: 'CA',
      region: 'CA-BC',
      amount: 180,
    });
    expect(figures.tax_by_region.find((p) => p.country === 'CA' && p.region === null)?.amount).toBe(120);

    // Yesterday: nothing; the period before today's 30 days holds nothing either.
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
    const s = await shop();
    await orderIn(s, 1, [
      { country: 'US', region: 'US-OR', share: 0 },
      { country: 'US', region: 'US-CA', share: 1 },
    ]);
    await orderIn(s, 1, [{ country: 'DE', region: null, share: 1 }]);
    await orderIn(s, 1, [{ country: 'AT', region: null, share: 1 }]);
    const { tax_by_region } = await report(s.api);
    expect(tax_by_region).toEqual([
      { country: 'AT', region: null, amount: 100 },
      { country: 'DE', region: null, amount: 100 },
      { country: 'US', region: 'US-CA', amount: 100 },
      { country: 'US', region: 'US-OR', amount: 0 },
    ]);
  });

  it("reports only the store's own shipping, tax and places", async () => {
    const a = await shop();
    const b = await shop();
    await orderIn(a, 1, [{ country: 'DE', region: null, share: 1 }]);
    expect(await report(b.api)).toMatchObject({ shipping: 0, tax: 0, tax_by_region: [] });
    expect(await report(a.api)).toMatchObject({ shipping: 500, tax: 100 });
  });
});
