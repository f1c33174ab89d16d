import { toDecimalString } from '../../platform/money.js';
import type { DiscountWithTargets } from './discounts.repository.js';
import type { DiscountRule, DiscountType } from './evaluate.js';

/** Hundredths of a percent → "15", "12.5", "0.01". */
export function percentString(hundredths: number): string {
  return toDecimalString(hundredths, 2).replace(/\.?0+$/, '');
}

function valueString(type: DiscountType, value: number, decimals: number): string {
  if (type === 'percentage') return percentString(value);
  if (type === 'fixed_amount') return toDecimalString(value, decimals);
  return '0';
}

/** Merchant view (/api/v1): snake_case, amounts as decimal strings of the store currency. */
export function discountForMerchant(row: DiscountWithTargets, decimals: number) {
  return {
    id: row.id,
    code: row.code,
    title: row.title,
    type: row.type,
    value: valueString(row.type, row.value, decimals),
    min_subtotal: row.min_subtotal === null ? null : toDecimalString(row.min_subtotal, decimals),
    starts_at: row.starts_at.toISOString(),
    ends_at: row.ends_at === null ? null : row.ends_at.toISOString(),
    usage_limit: row.usage_limit,
    usage_count: row.usage_count,
    once_per_customer: row.once_per_customer,
    active: row.active,
    product_ids: row.productIds,
    category_ids: row.categoryIds,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The evaluator's view of a stored discount. */
export function discountRule(row: DiscountWithTargets): DiscountRule {
  return {
    id: row.id,
    code: row.code,
    type: row.type,
    value: row.value,
    minSubtotal: row.min_subtotal,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    usageLimit: row.usage_limit,
    usageCount: row.usage_count,
    oncePerCustomer: row.once_per_customer,
    active: row.active,
    productIds: row.productIds,
    categoryIds: row.categoryIds,
    createdAt: row.created_at,
  };
}
