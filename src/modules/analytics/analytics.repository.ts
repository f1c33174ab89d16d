import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { AnalyticsDailyTable } from './analytics.tables.js';
import type { DateRange, GrainRange } from './periods.js';

/**
 * Reads of the rollups of migration 2026_11_23_0010_analytics (journals appended by triggers on the
 * order tables, folded into the rollups before a report). Dates go in and come out as `YYYY-MM-DD`
 * text: local dates of the store.
 */

export type DailyRow = Omit<AnalyticsDailyTable, 'store_id'>;

/** How a period's returning customers are counted (see `returningCustomers`). */
export type ReturningMethod = 'days' | 'gaps';

export interface PeriodCustomers {
  /** Customers whose first order (not cancelled) falls in the period. */
  newCustomers: number;
  /** Customers with an order (not cancelled) in the period and one before it. */
  returning: number;
}

/**
 * Returning customers of a period, one way or the other (both exact):
 * - `days`: the customer days inside the period whose previous day lies before it, one per such
 *   customer. The cost grows with the orders of the period.
 * - `gaps`: the customers active on both sides of its first day (first days minus last days before
 *   it) minus those whose gap straddles the whole period (previous day before `from`, next day after
 *   `to`). Gaps are bucketed by length (2^k to 2^(k+1) − 1 days) and each bucket is read over at most
 *   2^(k+1) days of `prev_day`, so the cost falls as the period grows: a year only meets long gaps.
 */
function returningCustomers(storeId: string, range: DateRange, method: ReturningMethod) {
  if (method === 'days')
    return sql<number>`(
      SELECT count(*) FROM analytics_customer_days
      WHERE store_id = ${storeId} AND day BETWEEN ${range.from}::date AND ${range.to}::date
        AND prev_day < ${range.from}::date)`;
  return sql<number>`(
    (SELECT coalesce(sum(firsts - lasts), 0) FROM analytics_customer_bounds
     WHERE store_id = ${storeId} AND day < ${range.from}::date)
    - (SELECT coalesce(sum(g.n), 0)
       FROM generate_series(0, 16) AS k
       CROSS JOIN LATERAL (
         SELECT count(*) AS n FROM analytics_customer_days
         WHERE store_id = ${storeId} AND prev_day IS NOT NULL AND gap_bucket = k
           AND prev_day > ${range.to}::date - (1 << (k + 1)) AND prev_day < ${range.from}::date
           AND day > ${range.to}::date
       ) g))`;
}

/**
 * In one round trip: the day rows of [from of the first period, to of the last] (days without
 * orders have none), and each period's new and returning customers.
 */
export async function periodFigures(
  db: Executor,
  storeId: string,
  periods: readonly { range: DateRange; returning: ReturningMethod }[],
): Promise<{ days: DailyRow[]; customers: PeriodCustomers[] }> {
  const from = periods.reduce((min, p) => (p.range.from < min ? p.range.from : min), '9999-12-31');
  const to = periods.reduce((max, p) => (p.range.to > max ? p.range.to : max), '0000-01-01');
  const columns = periods.map(
    ({ range, returning }, i) => sql`,
      (SELECT coalesce(sum(firsts), 0) FROM analytics_customer_bounds
       WHERE store_id = ${storeId} AND day BETWEEN ${range.from}::date AND ${range.to}::date)::bigint
        AS ${sql.ref(`new_${i}`)},
      ${returningCustomers(storeId, range, returning)}::bigint AS ${sql.ref(`returning_${i}`)}`,
  );
  const result = await sql<Record<string, unknown>>`
    SELECT (
      SELECT coalesce(json_agg(json_build_array(day::text, revenue, discounts, items_sold, pending,
        processing, on_hold, completed, cancelled, shipping, tax) ORDER BY day), '[]')
      FROM analytics_daily
      WHERE store_id = ${storeId} AND day BETWEEN ${from}::date AND ${to}::date
    ) AS days ${sql.join(columns, sql``)}`.execute(db);
  const row = result.rows[0] ?? {};
  const days = (row.days as [string, ...number[]][]).map(
    ([
      day,
      revenue,
      discounts,
      items_sold,
      pending,
      processing,
      on_hold,
      completed,
      cancelled,
      shipping,
      tax,
    ]) => ({
      day,
      revenue: Number(revenue),
      discounts: Number(discounts),
      shipping: Number(shipping),
      tax: Number(tax),
      items_sold: Number(items_sold),
      pending: Number(pending),
      processing: Number(processing),
      on_hold: Number(on_hold),
      completed: Number(completed),
      cancelled: Number(cancelled),
    }),
  );
  return {
    days,
    customers: periods.map((_, i) => ({
      newCustomers: Number(row[`new_${i}`] ?? 0),
      returning: Number(row[`returning_${i}`] ?? 0),
    })),
  };
}

export interface ProductSales {
  product_id: string;
  name: string | null;
  quantity: number;
  revenue: number;
}

/**
 * The best sellers of a range by revenue (then quantity, then id), read from the rollup rows of
 * `pieces` (disjoint months, weeks and days that cover the range), with the name of each product's
 * most recent order line.
 */
export async function topProducts(
  db: Executor,
  storeId: string,
  pieces: readonly GrainRange[],
  limit: number,
): Promise<ProductSales[]> {
  if (pieces.length === 0) return [];
  const parts = pieces.map(
    (p) => sql`
      SELECT product_id, quantity, revenue FROM analytics_product_sales
      WHERE store_id = ${storeId} AND grain = ${p.grain}
        AND period >= ${p.from}::date AND period < ${p.until}::date`,
  );
  const result = await sql<ProductSales>`
    SELECT t.product_id, n.name, t.quantity, t.revenue
    FROM (
      SELECT product_id, sum(quantity)::bigint AS quantity, sum(revenue)::bigint AS revenue
      FROM (${sql.join(parts, sql` UNION ALL `)}) rows
      GROUP BY product_id
      HAVING sum(quantity) > 0
      ORDER BY revenue DESC, quantity DESC, product_id
      LIMIT ${limit}
    ) t
    LEFT JOIN analytics_product_names n ON n.store_id = ${storeId} AND n.product_id = t.product_id
    ORDER BY t.revenue DESC, t.quantity DESC, t.product_id`.execute(db);
  return result.rows;
}

export interface TaxPlace {
  country: string | null;
  /** ISO 3166-2, or null for a country-wide rate. */
  region: string | null;
  amount: number;
}

/**
 * The tax of a range per place (the tax lines of its orders not cancelled), read from the rollup rows
 * of `pieces` like topProducts: largest amount first, then by country and region (country-wide
 * first). A place is listed when the range's orders have a tax line for it, even if it sums to 0.
 */
export async function taxByRegion(
  db: Executor,
  storeId: string,
  pieces: readonly GrainRange[],
): Promise<TaxPlace[]> {
  if (pieces.length === 0) return [];
  const parts = pieces.map(
    (p) => sql`
      SELECT country, region, amount, lines FROM analytics_tax_regions
      WHERE store_id = ${storeId} AND grain = ${p.grain}
        AND period >= ${p.from}::date AND period < ${p.until}::date`,
  );
  const result = await sql<{ country: string; region: string; amount: string }>`
    SELECT country, region, sum(amount)::bigint AS amount
    FROM (${sql.join(parts, sql` UNION ALL `)}) rows
    GROUP BY country, region
    HAVING sum(lines) > 0
    ORDER BY 3 DESC, country COLLATE "C", region COLLATE "C"`.execute(db);
  return result.rows.map((r) => ({
    country: r.country === '' ? null : r.country,
    region: r.region === '' ? null : r.region,
    amount: Number(r.amount),
  }));
}

/** Whether order changes of the store wait in the journals (four index probes, no lock). */
export async function hasPending(db: Executor, storeId: string): Promise<boolean> {
  const result = await sql<{ pending: boolean }>`
    SELECT EXISTS (SELECT 1 FROM analytics_pending_days WHERE store_id = ${storeId})
      OR EXISTS (SELECT 1 FROM analytics_pending_products WHERE store_id = ${storeId})
      OR EXISTS (SELECT 1 FROM analytics_pending_customers WHERE store_id = ${storeId})
      OR EXISTS (SELECT 1 FROM analytics_pending_taxes WHERE store_id = ${storeId}) AS pending`.execute(db);
  return result.rows[0]?.pending === true;
}

/** Moves the journals into the rollups, in a transaction of its own (one fold per store at a time). */
export async function fold(db: Executor, storeId: string): Promise<void> {
  await sql`SELECT analytics_fold(${storeId})`.execute(db);
}

/** Skips the rollup triggers for the rest of the transaction (bulk loads rebuild once instead). */
export async function pauseTriggers(tx: Executor): Promise<void> {
  await sql`SET LOCAL emporium.analytics_paused = 'on'`.execute(tx);
}

/** Recomputes the store's rollups from its orders (writers of the store wait meanwhile). */
export async function rebuild(db: Executor, storeId: string): Promise<void> {
  await sql`SELECT analytics_rebuild(${storeId})`.execute(db);
}
