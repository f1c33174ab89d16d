import { currencyDecimals, toDecimalNumber } from '../../platform/money.js';
import type { AnalyticsReport, Totals } from './analytics.service.js';

/** The report as /api/v1 answers it: amounts as numbers in the currency's decimals. */
export function reportForMerchant(report: AnalyticsReport) {
  const decimals = currencyDecimals(report.currency);
  const money = (minor: number) => toDecimalNumber(minor, decimals);
  const totals = (t: Totals) => ({
    revenue: money(t.revenue),
    orders: t.orders,
    average_order_value: money(t.average_order_value),
    items_sold: t.items_sold,
    discounts: money(t.discounts),
    shipping: money(t.shipping),
    tax: money(t.tax),
    refunds: money(t.refunds),
    net_revenue: money(t.net_revenue),
    new_customers: t.new_customers,
    returning_customers: t.returning_customers,
  });
  return {
    currency: report.currency,
    from: report.range.from,
    to: report.range.to,
    interval: report.interval,
    totals: totals(report.totals),
    previous_period: { from: report.previous.from, to: report.previous.to, ...totals(report.previousTotals) },
    timeseries: report.timeseries.map((p) => ({
      period_start: p.period_start,
      revenue: money(p.revenue),
      orders: p.orders,
    })),
    top_products: report.topProducts.map((p) => ({
      product_id: p.product_id,
      name: p.name ?? '',
      quantity: p.quantity,
      revenue: money(p.revenue),
    })),
    tax_by_region: report.taxByRegion.map((p) => ({
      country: p.country,
      region: p.region,
      amount: money(p.amount),
    })),
    status_breakdown: report.statusBreakdown,
  };
}
