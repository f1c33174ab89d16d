import type { CustomerRow } from './customers.repository.js';

/** Merchant view (/api/v1): snake_case. */
export function customerForMerchant(row: CustomerRow) {
  return {
    id: row.id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    phone: row.phone,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
