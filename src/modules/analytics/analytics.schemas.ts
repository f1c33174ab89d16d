import { Type } from 'typebox';
import { StringEnum } from '../../platform/http/envelopes.js';
import { INTERVALS } from './periods.js';

const LocalDate = (description: string) =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description, examples: ['2026-11-23'] });

export const AnalyticsQuery = Type.Object({
  from: Type.Optional(
    LocalDate('First day (inclusive), in the store timezone; default: 29 days before `to` (30 days in all)'),
  ),
  to: Type.Optional(LocalDate('Last day (inclusive), in the store timezone; default: today')),
  interval: Type.Optional(
    StringEnum(INTERVALS, {
      default: 'day',
      description: 'Time-series buckets: days, ISO weeks (from Monday) or calendar months',
    }),
  ),
});

const Money = (description: string) => Type.Number({ description });
const Count = (description: string) => Type.Integer({ minimum: 0, description });

const totalsFields = {
  revenue: Money('Money paid on the orders of the period that are not cancelled'),
  orders: Count('Orders created in the period that are not cancelled'),
  average_order_value: Money('revenue ÷ orders, rounded half up to the currency (0 without orders)'),
  items_sold: Count('Quantities on the lines of those orders'),
  discounts: Money('Discount amounts of those orders'),
  shipping: Money(
    'Shipping charged on those orders (paid or not, as their discounts; a refund is not split into shipping and tax: it counts in `refunds`)',
  ),
  tax: Money('Tax charged on those orders (their `tax_amount`; the same rules as `shipping`)'),
  refunds: Money(
    'Refunds that succeeded during the period (by the day they were made, whatever the day of their order), on orders not cancelled (a cancelled order is already out of revenue)',
  ),
  net_revenue: Money('revenue − refunds'),
  new_customers: Count('Customers whose first order (not cancelled) falls in the period'),
  returning_customers: Count('Customers with an order in the period and one before it (not cancelled)'),
};

export const AnalyticsReport = Type.Object({
  currency: Type.String(),
  from: Type.String({ format: 'date' }),
  to: Type.String({ format: 'date' }),
  interval: StringEnum(INTERVALS),
  totals: Type.Object(totalsFields),
  previous_period: Type.Object(
    { from: Type.String({ format: 'date' }), to: Type.String({ format: 'date' }), ...totalsFields },
    { description: 'The same figures for the same number of days immediately before `from`' },
  ),
  timeseries: Type.Array(
    Type.Object({
      period_start: Type.String({
        format: 'date',
        description: 'First day of the day, ISO week (Monday) or month; the first and last may be partial',
      }),
      revenue: Type.Number(),
      orders: Type.Integer(),
    }),
  ),
  top_products: Type.Array(
    Type.Object({
      product_id: Type.String(),
      name: Type.String({ description: "As on the product's line of its most recent order" }),
      quantity: Type.Integer(),
      revenue: Type.Number({ description: 'price × quantity of its lines on orders not cancelled' }),
    }),
    { description: 'The 10 best sellers of the period by revenue' },
  ),
  tax_by_region: Type.Array(
    Type.Object({
      country: Type.Union([Type.String(), Type.Null()], {
        description: 'ISO 3166-1 alpha-2 of the rate (null for a tax line that names no country)',
      }),
      region: Type.Union([Type.String(), Type.Null()], {
        description: 'ISO 3166-2 such as "US-CA", or null for a country-wide rate',
      }),
      amount: Type.Number({ description: 'Sum of the tax lines of that place on orders not cancelled' }),
    }),
    {
      description:
        "The period's tax per place, from the orders' tax lines: largest amount first, then by country and region",
    },
  ),
  status_breakdown: Type.Object(
    {
      pending: Type.Integer(),
      processing: Type.Integer(),
      on_hold: Type.Integer(),
      completed: Type.Integer(),
      cancelled: Type.Integer(),
    },
    { description: 'Orders created in the period by their current status, cancelled included' },
  ),
});
