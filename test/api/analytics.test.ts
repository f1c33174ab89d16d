import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
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
import { createOrder, setPricing } from '../helpers/order-factories.js';

let app: TestApp;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
});
afterAll(() => app.close());

const unique = () => randomBytes(4).toString('hex');

/** A store in `timezone` with an all-scopes key and a few products; $4.99 shipping and 8.25 % tax. */
async function shop(timezone: string, products = 3) {
  const store = await app.services.stores.createStore({
    slug: `an-${unique()}`,
    name: 'Analytics',
    timezone,
  });
  await setPricing(app, store.id, { shipping_flat_rate: 499, tax_rate_bps: 825 });
  const { key } = await app.services.stores.createApiKey(store.id, { scopes: 'all' });
  const api = client(app, key);
  const catalogue: ProductData[] = [];
  for (let i = 0; i < products; i++)
    catalogue.push(
      await createProduct(api, { name: `P${i} ${unique()}`, price: `${3 + i * 4}.25`, inventory: 100_000 }),
    );
  return { storeId: store.id, api, products: catalogue };
}

// ---------------------------------------------------------------------------------------------
// The independent computation: plain JavaScript over the order rows read back from the database.
// ---------------------------------------------------------------------------------------------

interface OrderFact {
  id: string;
  status: string;
  amount_paid: number;
  discount_amount: number;
  shipping_amount: number;
  tax_amount: number;
  tax_lines: { country: string | null; region: string | null; amount: number }[];
  customer_id: string | null;
  created_at: Date;
  lines: { product_id: string | null; name: string; quantity: number; price: number; position: number }[];
}

async function factsOf(storeId: string): Promise<OrderFact[]> {
  const db = app.database.db;
  const orders = await db
    .selectFrom('orders')
    .select([
      'id',
      'status',
      'amount_paid',
      'discount_amount',
      'shipping_amount',
      'tax_amount',
      'tax_lines',
      'customer_id',
      'created_at',
    ])
    .where('store_id', '=', storeId)
    .execute();
  const lines = await db
    .selectFrom('order_line_items')
    .select(['order_id', 'product_id', 'name', 'quantity', 'price', 'position'])
    .where('store_id', '=', storeId)
    .execute();
  return orders.map((o) => ({ ...o, lines: lines.filter((l) => l.order_id === o.id) }));
}

/** The local calendar date of an instant, from Intl (not from PostgreSQL). */
function localDate(instant: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  })
    .formatToParts(instant)
    .reduce<Record<string, string>>((acc, p) => {
      acc[p.type] = p.value;
      return acc;
    }, {});
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** The instant of 00:00 on `date` in `timeZone` (to within an hour around a DST change: near enough). */
function localMidnight(date: string, timeZone: string): number {
  const utcMidnight = Date.parse(`${date}T00:00:00Z`);
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  })
    .formatToParts(new Date(utcMidnight))
    .reduce<Record<string, number>>((acc, p) => {
      acc[p.type] = Number(p.value);
      return acc;
    }, {});
  const wall = Date.UTC(
    parts.year as number,
    (parts.month as number) - 1,
    parts.day,
    parts.hour,
    parts.minute,
  );
  return utcMidnight - (wall - utcMidnight);
}

const dayMs = 86_400_000;
const toDay = (date: string) => Date.parse(`${date}T00:00:00Z`) / dayMs;
const fromDay = (n: number) => new Date(n * dayMs).toISOString().slice(0, 10);
const shift = (date: string, days: number) => fromDay(toDay(date) + days);

function bucketOf(date: string, interval: string): string {
  if (interval === 'day') return date;
  if (interval === 'month') return `${date.slice(0, 7)}-01`;
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  return shift(date, -((weekday + 6) % 7));
}

function expectedTotals(facts: OrderFact[], timeZone: string, from: string, to: string) {
  const dated = facts.map((o) => ({ ...o, day: localDate(o.created_at, timeZone) }));
  const inRange = dated.filter((o) => o.day >= from && o.day <= to);
  const counted = inRange.filter((o) => o.status !== 'cancelled');
  const revenue = counted.reduce((s, o) => s + o.amount_paid, 0);
  const firstDay = new Map<string, string>();
  for (const o of dated) {
    if (o.status === 'cancelled' || !o.customer_id) continue;
    const seen = firstDay.get(o.customer_id);
    if (!seen || o.day < seen) firstDay.set(o.customer_id, o.day);
  }
  const buyers = new Set(counted.flatMap((o) => (o.customer_id ? [o.customer_id] : [])));
  const orders = counted.length;
  return {
    revenue,
    orders,
    average_order_value: orders ? Math.floor((2 * revenue + orders) / (2 * orders)) : 0,
    items_sold: counted.reduce((s, o) => s + o.lines.reduce((q, l) => q + l.quantity, 0), 0),
    discounts: counted.reduce((s, o) => s + o.discount_amount, 0),
    shipping: counted.reduce((s, o) => s + o.shipping_amount, 0),
    tax: counted.reduce((s, o) => s + o.tax_amount, 0),
    // These orders have no refunds (refunds.test.ts covers net revenue).
    refunds: 0,
    net_revenue: revenue,
    new_customers: [...firstDay.values()].filter((d) => d >= from && d <= to).length,
    returning_customers: [...buyers].filter((c) => (firstDay.get(c) as string) < from).length,
  };
}

/** The whole report of GET /analytics, amounts in minor units (USD). */
function expectedReport(facts: OrderFact[], timeZone: string, from: string, to: string, interval: string) {
  const days = toDay(to) - toDay(from) + 1;
  const prevFrom = shift(from, -days);
  const prevTo = shift(from, -1);
  const dated = facts.map((o) => ({ ...o, day: localDate(o.created_at, timeZone) }));
  const inRange = dated.filter((o) => o.day >= from && o.day <= to);
  const counted = inRange.filter((o) => o.status !== 'cancelled');

  const series = new Map<string, { revenue: number; orders: number }>();
  for (let d = bucketOf(from, interval); d <= to; ) {
    series.set(d, { revenue: 0, orders: 0 });
    d =
      interval === 'day' ? shift(d, 1) : interval === 'week' ? shift(d, 7) : bucketOf(shift(d, 31), 'month');
  }
  for (const o of counted) {
    const bucket = series.get(bucketOf(o.day, interval)) as { revenue: number; orders: number };
    bucket.revenue += o.amount_paid;
    bucket.orders += 1;
  }

  const products = new Map<string, { quantity: number; revenue: number }>();
  for (const o of counted)
    for (const l of o.lines) {
      if (!l.product_id) continue;
      const p = products.get(l.product_id) ?? { quantity: 0, revenue: 0 };
      p.quantity += l.quantity;
      p.revenue += l.quantity * l.price;
      products.set(l.product_id, p);
    }
  const latestName = (productId: string) =>
    dated
      .flatMap((o) => o.lines.filter((l) => l.product_id === productId).map((l) => ({ o, l })))
      .sort((a, b) => b.o.created_at.getTime() - a.o.created_at.getTime() || b.l.position - a.l.position)[0]
      ?.l.name;
  const top = [...products]
    .filter(([, p]) => p.quantity > 0)
    .sort(([ia, a], [ib, b]) => b.revenue - a.revenue || b.quantity - a.quantity || (ia < ib ? -1 : 1))
    .slice(0, 10)
    .map(([product_id, p]) => ({ product_id, name: latestName(product_id), ...p }));

  // Per place, every tax line of the counted orders (a place with lines is listed even at 0).
  const places = new Map<string, { country: string | null; region: string | null; amount: number }>();
  for (const o of counted)
    for (const l of o.tax_lines) {
      const key = `${l.country ?? ''}|${l.region ?? ''}`;
      const place = places.get(key) ?? { country: l.country ?? null, region: l.region ?? null, amount: 0 };
      place.amount += l.amount;
      places.set(key, place);
    }
  const text = (v: string | null) => v ?? '';
  const tax_by_region = [...places.values()].sort(
    (a, b) =>
      b.amount - a.amount ||
      (text(a.country) < text(b.country) ? -1 : text(a.country) > text(b.country) ? 1 : 0) ||
      (text(a.region) < text(b.region) ? -1 : text(a.region) > text(b.region) ? 1 : 0),
  );

  const status_breakdown = { pending: 0, processing: 0, on_hold: 0, completed: 0, cancelled: 0 };
  for (const o of inRange) status_breakdown[o.status as keyof typeof status_breakdown] += 1;

  return {
    from,
    to,
    interval,
    totals: expectedTotals(facts, timeZone, from, to),
    previous_period: { from: prevFrom, to: prevTo, ...expectedTotals(facts, timeZone, prevFrom, prevTo) },
    timeseries: [...series].map(([period_start, f]) => ({ period_start, ...f })),
    top_products: top,
    tax_by_region,
    status_breakdown,
  };
}

const minor = (amount: number) => Math.round(amount * 100);

/** The API's report with amounts back in minor units, to compare with expectedReport. */
interface ApiReport {
  from: string;
  to: string;
  interval: string;
  totals: Record<string, number>;
  previous_period: Record<string, number>;
  timeseries: { period_start: string; revenue: number; orders: number }[];
  top_products: { product_id: string; name: string; quantity: number; revenue: number }[];
  tax_by_region: { country: string | null; region: string | null; amount: number }[];
  status_breakdown: Record<string, number>;
}

function inMinorUnits(data: ApiReport) {
  const totals = (t: Record<string, number>) => ({
    ...t,
    revenue: minor(t.revenue as number),
    average_order_value: minor(t.average_order_value as number),
    discounts: minor(t.discounts as number),
    shipping: minor(t.shipping as number),
    tax: minor(t.tax as number),
    refunds: minor(t.refunds as number),
    net_revenue: minor(t.net_revenue as number),
  });
  return {
    from: data.from,
    to: data.to,
    interval: data.interval,
    totals: totals(data.totals),
    previous_period: totals(data.previous_period),
    timeseries: data.timeseries.map((p: { period_start: string; revenue: number; orders: number }) => ({
      ...p,
      revenue: minor(p.revenue),
    })),
    top_products: data.top_products.map((p: { revenue: number }) => ({ ...p, revenue: minor(p.revenue) })),
    tax_by_region: data.tax_by_region.map((p) => ({ ...p, amount: minor(p.amount) })),
    status_breakdown: data.status_breakdown,
  };
}

async function report(api: Client, query: string) {
  const res = await api.get(`/api/v1/analytics${query}`);
  if (res.statusCode !== 200) throw new Error(`analytics answered ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

async function expectReport(
  api: Client,
  storeId: string,
  timeZone: string,
  range: { from: string; to: string; interval: string },
) {
  const data = await report(api, `?from=${range.from}&to=${range.to}&interval=${range.interval}`);
  expect(data.currency).toBe('USD');
  expect(inMinorUnits(data)).toEqual(
    expectedReport(await factsOf(storeId), timeZone, range.from, range.to, range.interval),
  );
}

/** Every rollup row, as kept by the triggers (rows left at zero dropped), to compare with a rebuild. */
async function rollupsOf(storeId: string) {
  const db = app.database.db;
  const rows = async (query: string) =>
    (await sql.raw(query.replaceAll('$store', `'${storeId}'`)).execute(db)).rows.map((r) =>
      JSON.stringify(r),
    );
  return {
    daily: await rows(
      `SELECT day::text, revenue, discounts, shipping, tax, items_sold, pending, processing, on_hold,
         completed, cancelled
       FROM analytics_daily WHERE store_id = $store
         AND (revenue, discounts, shipping, tax, items_sold, pending, processing, on_hold, completed, cancelled)
           <> (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
       ORDER BY day`,
    ),
    taxes: await rows(
      `SELECT grain, period::text, country, region, amount, lines FROM analytics_tax_regions
       WHERE store_id = $store AND (amount, lines) <> (0, 0) ORDER BY grain, period, country, region`,
    ),
    products: await rows(
      `SELECT grain, period::text, product_id, quantity, revenue FROM analytics_product_sales
       WHERE store_id = $store AND (quantity, revenue) <> (0, 0) ORDER BY grain, period, product_id`,
    ),
    customers: await rows(
      `SELECT customer_id, first_day::text, last_day::text FROM analytics_customers
       WHERE store_id = $store AND first_day IS NOT NULL ORDER BY customer_id`,
    ),
    days: await rows(
      `SELECT customer_id, day::text, prev_day::text, gap_bucket FROM analytics_customer_days
       WHERE store_id = $store ORDER BY customer_id, day`,
    ),
    bounds: await rows(
      `SELECT day::text, firsts, lasts FROM analytics_customer_bounds
       WHERE store_id = $store AND (firsts, lasts) <> (0, 0) ORDER BY day`,
    ),
  };
}

/** Places of tax lines the property test gives its orders. */
const TAX_PLACES = [
  { country: 'US', region: 'US-CA' },
  { country: 'US', region: 'US-NY' },
  { country: 'DE', region: null },
  { country: null, region: null },
];

// ---------------------------------------------------------------------------------------------

describe('GET /api/v1/analytics', () => {
  it('answers the contract shape for the default range: the last 30 days up to today, every day present', async () => {
    const { api, products } = await shop('Pacific/Auckland');
    const order = await createOrder(api, {
      items: [{ product_id: products[0]?.id, quantity: 2 }],
      mark_paid: true,
    });
    const data = await report(api, '');
    const today = localDate(new Date(), 'Pacific/Auckland');
    expect(data).toMatchObject({
      currency: 'USD',
      from: shift(today, -29),
      to: today,
      interval: 'day',
      previous_period: { from: shift(today, -59), to: shift(today, -30), orders: 0, revenue: 0 },
      totals: {
        revenue: order.total,
        orders: 1,
        average_order_value: order.total,
        items_sold: 2,
        discounts: 0,
        shipping: 4.99,
        tax: order.tax_amount,
        new_customers: 1,
        returning_customers: 0,
      },
      top_products: [{ product_id: products[0]?.id, name: products[0]?.name, quantity: 2, revenue: 6.5 }],
      status_breakdown: { pending: 0, processing: 1, on_hold: 0, completed: 0, cancelled: 0 },
    });
    expect(data.timeseries).toHaveLength(30);
    expect(data.timeseries[0]).toEqual({ period_start: shift(today, -29), revenue: 0, orders: 0 });
    expect(data.timeseries[29]).toEqual({ period_start: today, revenue: order.total, orders: 1 });
  });

  it('buckets by ISO week (from Monday) and by calendar month, partial periods included', async () => {
    const { api } = await shop('UTC');
    const weeks = await report(api, '?from=2026-11-27&to=2026-12-09&interval=week');
    expect(weeks.timeseries.map((p: { period_start: string }) => p.period_start)).toEqual([
      '2026-11-23',
      '2026-11-30',
      '2026-12-07',
    ]);
    const months = await report(api, '?from=2025-12-31&to=2026-03-01&interval=month');
    expect(months.timeseries.map((p: { period_start: string }) => p.period_start)).toEqual([
      '2025-12-01',
      '2026-01-01',
      '2026-02-01',
      '2026-03-01',
    ]);
    expect(months.previous_period).toMatchObject({ from: '2025-10-31', to: '2025-12-30' });
  });

  it('refuses bad dates, reversed ranges, more than five years and unknown intervals (400 with details)', async () => {
    const { api } = await shop('UTC');
    for (const [query, field] of [
      ['?from=2026-02-30', 'from'],
      ['?from=26-01-01', 'from'],
      ['?to=2026-13-01', 'to'],
      ['?from=2026-05-06&to=2026-05-05', 'to'],
      ['?from=2021-01-01&to=2026-01-01', 'to'],
      ['?interval=year', 'interval'],
    ] as const) {
      const res = await api.get(`/api/v1/analytics${query}`);
      expect(res.statusCode, query).toBe(400);
      const error = res.json().error;
      expect(error.code).toBe('invalid_request');
      expect(error.details?.[0]?.field, query).toBe(field);
    }
    expect((await api.get('/api/v1/analytics?from=2021-01-01&to=2025-12-31')).statusCode).toBe(200);
  });

  it('needs analytics:read (403 without it)', async () => {
    const { store } = await createStoreWithKey(app);
    const readOnly = await app.services.stores.createApiKey(store.id, { scopes: ['orders:read'] });
    const analyst = await app.services.stores.createApiKey(store.id, { scopes: ['analytics:read'] });
    const denied = await client(app, readOnly.key).get('/api/v1/analytics');
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('forbidden');
    expect((await client(app, analyst.key).get('/api/v1/analytics')).statusCode).toBe(200);
    expect((await client(app).get('/api/v1/analytics')).statusCode).toBe(401);
  });

  it("counts only the store's own orders", async () => {
    const a = await shop('UTC', 1);
    const b = await shop('UTC', 1);
    await createOrder(a.api, { items: [{ product_id: a.products[0]?.id, quantity: 3 }], mark_paid: true });
    const fromB = await report(b.api, '');
    expect(fromB.totals).toMatchObject({ orders: 0, revenue: 0, items_sold: 0, new_customers: 0 });
    expect(fromB.top_products).toEqual([]);
    expect((await report(a.api, '')).totals).toMatchObject({ orders: 1, items_sold: 3 });
  });

  it('a timezone change moves orders to their new local days', async () => {
    const tz = 'America/New_York';
    const s = await shop(tz, 1);
    const order = await createOrder(s.api, {
      items: [{ product_id: s.products[0]?.id, quantity: 1 }],
      mark_paid: true,
    });
    // 01:30 UTC on 15 June: the 14th in New York, the 15th in Berlin.
    await app.database.db
      .updateTable('orders')
      .set({ created_at: new Date('2026-06-15T01:30:00Z') })
      .where('id', '=', order.id)
      .execute();
    const range = { from: '2026-06-14', to: '2026-06-15', interval: 'day' };
    await expectReport(s.api, s.storeId, tz, range);
    expect((await report(s.api, '?from=2026-06-14&to=2026-06-14')).totals.orders).toBe(1);
    await app.services.stores.updateSettings(s.storeId, { timezone: 'Europe/Berlin' });
    await expectReport(s.api, s.storeId, 'Europe/Berlin', range);
    expect((await report(s.api, '?from=2026-06-15&to=2026-06-15')).totals.orders).toBe(1);
  });

  it('concurrent orders, payments and cancellations of one buyer never deadlock and add up exactly', async () => {
    const tz = 'Europe/Berlin';
    const s = await shop(tz, 2);
    const email = `same.${unique()}@example.com`;
    const items = [
      { product_id: s.products[0]?.id, quantity: 1 },
      { product_id: s.products[1]?.id, quantity: 2 },
    ];
    const first = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        createOrder(s.api, { customer: { email }, items: i % 2 ? items : [...items].reverse() }),
      ),
    );
    const results = await Promise.all([
      ...first.slice(0, 3).map((o) => s.api.post(`/api/v1/orders/${o.id}/cancel`, {})),
      ...first.slice(3).map((o) => s.api.post(`/api/v1/orders/${o.id}/mark-paid`, {})),
      ...Array.from({ length: 4 }, () =>
        s.api.post('/api/v1/orders', { customer: { email }, items, mark_paid: true }),
      ),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([
      200, 200, 200, 200, 200, 200, 201, 201, 201, 201,
    ]);
    const today = localDate(new Date(), tz);
    await expectReport(s.api, s.storeId, tz, { from: shift(today, -1), to: today, interval: 'day' });
  });

  it('property: every figure equals a direct computation over random orders around midnight and DST', async () => {
    // Local dates near the 2026 DST changes of the US, the EU and Lord Howe, and some ordinary days.
    const days = [
      '2026-03-07',
      '2026-03-08',
      '2026-03-09',
      '2026-03-28',
      '2026-03-29',
      '2026-04-05',
      '2026-10-04',
    ];
    days.push(
      '2026-10-25',
      '2026-10-31',
      '2026-11-01',
      '2026-11-02',
      '2026-01-01',
      '2025-12-31',
      '2026-06-30',
    );
    const operation = fc.constantFrom('pay_part', 'pay_full', 'cancel', 'edit', 'hold', 'fulfill');
    const orderSpec = fc.record({
      customer: fc.nat(3),
      items: fc.uniqueArray(fc.record({ product: fc.nat(2), quantity: fc.integer({ min: 1, max: 3 }) }), {
        minLength: 1,
        maxLength: 3,
        selector: (i) => i.product,
      }),
      coupon: fc.boolean(),
      markPaid: fc.boolean(),
      day: fc.constantFrom(...days),
      minutes: fc.integer({ min: -150, max: 150 }),
      // The tax lines the order is given (as checkout writes them: places of two states, a country-wide
      // rate, a line naming no country; amounts in cents, 0 included).
      taxes: fc.uniqueArray(fc.record({ place: fc.nat(3), amount: fc.nat(2500) }), {
        maxLength: 3,
        selector: (t) => t.place,
      }),
      ops: fc.array(fc.record({ op: operation, fraction: fc.double({ min: 0, max: 1, noNaN: true }) }), {
        maxLength: 3,
      }),
    });
    const queryRange = fc.record({
      start: fc.constantFrom(...days),
      offset: fc.integer({ min: -40, max: 5 }),
      length: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 93, max: 500 })),
      interval: fc.constantFrom('day', 'week', 'month'),
    });

    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kathmandu'),
        fc.array(orderSpec, { minLength: 1, maxLength: 7 }),
        fc.array(queryRange, { minLength: 2, maxLength: 4 }),
        async (tz, specs, ranges) => {
          const s = await shop(tz);
          const code = `TEN${unique()}`.toUpperCase();
          await s.api.post('/api/v1/discounts', { code, type: 'percentage', value: '10' });
          const emails = [0, 1, 2, 3].map((i) => `buyer${i}.${unique()}@example.com`);
          for (const spec of specs) {
            const order = await createOrder(s.api, {
              customer: { email: emails[spec.customer] },
              items: spec.items.map((i) => ({ product_id: s.products[i.product]?.id, quantity: i.quantity })),
              ...(spec.coupon ? { coupon_code: code } : {}),
              mark_paid: spec.markPaid,
            });
            // Near local midnight of the chosen day (the API cannot backdate; the triggers follow).
            const createdAt = new Date(localMidnight(spec.day, tz) + spec.minutes * 60_000);
            const taxLines = spec.taxes.map(({ place, amount }) => ({
              name: 'Sales tax',
              rate: '8.25',
              amount,
              ...(TAX_PLACES[place] as { country: string | null; region: string | null }),
            }));
            await app.database.db
              .updateTable('orders')
              .set({ created_at: createdAt, tax_lines: JSON.stringify(taxLines) })
              .where('id', '=', order.id)
              .execute();

            for (const { op, fraction } of spec.ops) {
              const now = (await s.api.get(`/api/v1/orders/${order.id}`)).json().data;
              const path = `/api/v1/orders/${order.id}`;
              let res: Awaited<ReturnType<Client['get']>> | undefined;
              if (op === 'pay_part' || op === 'pay_full') {
                const balance = minor(now.balance_due);
                const amount =
                  op === 'pay_full' ? balance : 1 + Math.floor(fraction * Math.max(0, balance - 1));
                if (balance > 0)
                  res = await s.api.post(`${path}/mark-paid`, { amount: (amount / 100).toFixed(2) });
              } else if (op === 'cancel') res = await s.api.post(`${path}/cancel`, {});
              else if (op === 'hold') res = await s.api.patch(path, { status: 'on_hold' });
              else if (op === 'fulfill') res = await s.api.post(`${path}/fulfill`, {});
              else {
                const lines = now.line_items as { id: string; quantity: number }[];
                // fraction may be exactly 1: the last product, not one past it.
                const pick = Math.min(s.products.length - 1, Math.floor(fraction * s.products.length));
                const product = s.products[pick] as ProductData;
                const body =
                  fraction < 0.34
                    ? {
                        update_quantity: [
                          { item_id: lines[0]?.id, new_quantity: 1 + Math.floor(fraction * 12) },
                        ],
                      }
                    : fraction < 0.67 || lines.length < 2
                      ? { add: [{ product_id: product.id, name: product.name, quantity: 2, price: '1.10' }] }
                      : { remove: [lines.at(-1)?.id] };
                res = await s.api.post(`${path}/edit-items`, body);
              }
              // Operations the order's state forbids (409) are part of the game; nothing else fails.
              if (res) expect([200, 409], res.body).toContain(res.statusCode);
            }
          }

          for (const r of ranges) {
            const from = shift(r.start, r.offset);
            await expectReport(s.api, s.storeId, tz, {
              from,
              to: shift(from, r.length - 1),
              interval: r.interval,
            });
          }
          // The triggers kept exactly what a rebuild from the orders computes.
          const kept = await rollupsOf(s.storeId);
          await sql`SELECT analytics_rebuild(${s.storeId})`.execute(app.database.db);
          expect(await rollupsOf(s.storeId)).toEqual(kept);
        },
      ),
      { numRuns: 25 },
    );
  }, 300_000); // shrinking a counterexample replays many scenarios
});
