/**
 * Rollup tables kept by the triggers of migration 2026_11_23_0010_analytics (see there): written
 * only by those triggers and analytics_rebuild(), read by analytics.repository.ts. `date` columns are
 * selected as text (`day::text`): local dates of the store, never converted to instants.
 */
export interface AnalyticsDailyTable {
  store_id: string;
  day: string;
  revenue: number;
  discounts: number;
  /** shipping_amount and tax_amount of the orders not cancelled (migration 0040). */
  shipping: number;
  tax: number;
  items_sold: number;
  pending: number;
  processing: number;
  on_hold: number;
  completed: number;
  cancelled: number;
}

export interface AnalyticsProductSalesTable {
  store_id: string;
  grain: 'day' | 'week' | 'month';
  period: string;
  product_id: string;
  quantity: number;
  revenue: number;
}

/** Per tax place (country, region; '' for none) and period: the tax lines' amount and count. */
export interface AnalyticsTaxRegionsTable {
  store_id: string;
  grain: 'day' | 'week' | 'month';
  period: string;
  country: string;
  region: string;
  amount: number;
  lines: number;
}

export interface AnalyticsProductNamesTable {
  store_id: string;
  product_id: string;
  name: string;
  seen_at: Date;
}

export interface AnalyticsCustomersTable {
  store_id: string;
  customer_id: string;
  first_day: string | null;
  last_day: string | null;
}

export interface AnalyticsCustomerDaysTable {
  store_id: string;
  customer_id: string;
  day: string;
  prev_day: string | null;
  gap_bucket: number | null;
}

export interface AnalyticsCustomerBoundsTable {
  store_id: string;
  day: string;
  firsts: number;
  lasts: number;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    analytics_daily: AnalyticsDailyTable;
    analytics_product_sales: AnalyticsProductSalesTable;
    analytics_product_names: AnalyticsProductNamesTable;
    analytics_tax_regions: AnalyticsTaxRegionsTable;
    analytics_customers: AnalyticsCustomersTable;
    analytics_customer_days: AnalyticsCustomerDaysTable;
    analytics_customer_bounds: AnalyticsCustomerBoundsTable;
  }
}
