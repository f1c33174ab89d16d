import type { StoreItemRow } from './operators.repository.js';

/** A row of the operator's store list: counts as numbers, instants as ISO strings. */
export function storeItem(row: StoreItemRow) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    owner_email: row.owner_email,
    status: row.status,
    created_at: row.created_at.toISOString(),
    products_count: Number(row.products_count),
    orders_30d: Number(row.orders_30d),
    revenue_30d: Number(row.revenue_30d),
    currency: row.currency,
    last_activity_at: row.last_activity_at?.toISOString() ?? null,
  };
}

/** The store page: the list's item and what only the page shows. */
export function storeDetail(row: StoreItemRow) {
  return {
    ...storeItem(row),
    timezone: row.timezone,
    custom_domain: row.custom_domain,
    suspended_at: row.suspended_at?.toISOString() ?? null,
    suspension_reason: row.suspension_reason,
    members_count: Number(row.members_count),
  };
}
