import { toDecimalNumber } from '../../platform/money.js';
import type { CustomerWithAddresses } from './customers.repository.js';

/** Merchant view (/api/v1): snake_case; `total_spent` is a number like order amounts. */
export function customerForMerchant(row: CustomerWithAddresses, decimals: number) {
  return {
    id: row.id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    phone: row.phone,
    orders_count: row.orders_count,
    total_spent: toDecimalNumber(row.total_spent, decimals),
    addresses: row.addresses,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
