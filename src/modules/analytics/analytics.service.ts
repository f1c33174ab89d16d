import type { Db, Executor } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/http/context.js';
import { invalidRequest } from '../../platform/http/errors.js';
import type { StoresService } from '../stores/index.js';
import * as repo from './analytics.repository.js';
import {
  type DateRange,
  grainRanges,
  type Interval,
  lengthInDays,
  periodStart,
  periodStarts,
  previousPeriod,
  resolveRange,
  todayIn,
} from './periods.js';

export const ORDER_STATUSES = ['pending', 'processing', 'on_hold', 'completed', 'cancelled'] as const;
export type StatusBreakdown = Record<(typeof ORDER_STATUSES)[number], number>;

/** Money in minor units. Every figure but the status breakdown leaves cancelled orders out. */
export interface Totals {
  revenue: number;
  orders: number;
  average_order_value: number;
  items_sold: number;
  discounts: number;
  /** Shipping charged on those orders (refunds are not split: they count in `refunds` only). */
  shipping: number;
  /** Tax charged on those orders (the same rule). */
  tax: number;
  /** Refunds that succeeded in the period (by the day they were made), on orders not cancelled. */
  refunds: number;
  /** revenue − refunds. */
  net_revenue: number;
  new_customers: number;
  returning_customers: number;
}

export interface AnalyticsReport {
  currency: string;
  range: DateRange;
  previous: DateRange;
  interval: Interval;
  totals: Totals;
  previousTotals: Totals;
  timeseries: { period_start: string; revenue: number; orders: number }[];
  topProducts: repo.ProductSales[];
  taxByRegion: repo.TaxPlace[];
  statusBreakdown: StatusBreakdown;
}

export interface AnalyticsQuery {
  from?: string;
  to?: string;
  interval?: Interval;
}

const TOP_PRODUCTS = 10;
/**
 * Up to this many days, returning customers are counted from the customer days of the range; beyond
 * it, from the customers straddling its first day minus the gaps straddling the whole range (whose
 * cost falls as the range grows). See docs/performance.md for the measurements behind the figure.
 */
const SHORT_RANGE_DAYS = 45;

/** Revenue ÷ orders, rounded half up to the minor unit (0 without orders). */
export function averageOrderValue(revenue: number, orders: number): number {
  return orders > 0 ? Math.floor((2 * revenue + orders) / (2 * orders)) : 0;
}

const ordersOf = (row: repo.DailyRow) => row.pending + row.processing + row.on_hold + row.completed;

function totalsOf(
  rows: readonly repo.DailyRow[],
  customers: { newCustomers: number; returning: number },
  refunds: number,
): Totals {
  let revenue = 0;
  let orders = 0;
  let items = 0;
  let discounts = 0;
  let shipping = 0;
  let tax = 0;
  for (const row of rows) {
    revenue += row.revenue;
    orders += ordersOf(row);
    items += row.items_sold;
    discounts += row.discounts;
    shipping += row.shipping;
    tax += row.tax;
  }
  return {
    revenue,
    orders,
    average_order_value: averageOrderValue(revenue, orders),
    items_sold: items,
    discounts,
    shipping,
    tax,
    refunds,
    net_revenue: revenue - refunds,
    new_customers: customers.newCustomers,
    returning_customers: customers.returning,
  };
}

/**
 * Succeeded refunds made on the store's local days `from`..`to` (the orders module owns refunds and
 * answers this at the composition root).
 */
export type RefundsBetween = (
  storeId: string,
  days: { from: string; to: string },
  timezone: string,
) => Promise<number>;

export function createAnalyticsService(deps: {
  db: Db;
  stores: StoresService;
  refundsBetween: RefundsBetween;
}) {
  const { db } = deps;

  const returningMethod = (range: DateRange): repo.ReturningMethod =>
    lengthInDays(range) <= SHORT_RANGE_DAYS ? 'days' : 'gaps';

  return {
    /** GET /analytics: the range's figures, the previous period's, a time series, best sellers. */
    async report(ctx: RequestContext, query: AnalyticsQuery): Promise<AnalyticsReport> {
      const store = await deps.stores.getStore(ctx.storeId);
      const resolved = resolveRange(query, todayIn(store.timezone));
      if (!resolved.ok) {
        const first = resolved.details[0];
        throw invalidRequest(first ? `${first.field} ${first.message}` : 'invalid range', resolved.details);
      }
      const { range } = resolved;
      // Order changes committed since the last report are folded in first: the figures include them.
      if (await repo.hasPending(db, ctx.storeId)) await repo.fold(db, ctx.storeId);
      const previous = previousPeriod(range);
      const interval = query.interval ?? 'day';
      const pieces = grainRanges(range);
      const [{ days, customers }, topProducts, taxByRegion, refunds, previousRefunds] = await Promise.all([
        repo.periodFigures(db, ctx.storeId, [
          { range, returning: returningMethod(range) },
          { range: previous, returning: returningMethod(previous) },
        ]),
        repo.topProducts(db, ctx.storeId, pieces, TOP_PRODUCTS),
        repo.taxByRegion(db, ctx.storeId, pieces),
        deps.refundsBetween(ctx.storeId, range, store.timezone),
        deps.refundsBetween(ctx.storeId, previous, store.timezone),
      ]);
      const none = { newCustomers: 0, returning: 0 };

      const inRange = days.filter((d) => d.day >= range.from);
      const buckets = new Map(
        periodStarts(range, interval).map((start) => [start, { revenue: 0, orders: 0 }]),
      );
      const statusBreakdown: StatusBreakdown = {
        pending: 0,
        processing: 0,
        on_hold: 0,
        completed: 0,
        cancelled: 0,
      };
      for (const row of inRange) {
        const bucket = buckets.get(periodStart(row.day, interval));
        if (bucket) {
          bucket.revenue += row.revenue;
          bucket.orders += ordersOf(row);
        }
        for (const status of ORDER_STATUSES) statusBreakdown[status] += row[status];
      }
      return {
        currency: store.currency,
        range,
        previous,
        interval,
        totals: totalsOf(inRange, customers[0] ?? none, refunds),
        previousTotals: totalsOf(
          days.filter((d) => d.day < range.from),
          customers[1] ?? none,
          previousRefunds,
        ),
        timeseries: [...buckets].map(([period_start, figures]) => ({ period_start, ...figures })),
        topProducts,
        taxByRegion,
        statusBreakdown,
      };
    },

    /**
     * A bulk load of orders in `tx` (the CLI seed): the rollup triggers are paused for the
     * transaction and the store is rebuilt once at its end, instead of journalling every row.
     */
    async bulkLoad<T>(tx: Executor, storeId: string, load: () => Promise<T>): Promise<T> {
      await repo.pauseTriggers(tx);
      const result = await load();
      await repo.rebuild(tx, storeId);
      return result;
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
