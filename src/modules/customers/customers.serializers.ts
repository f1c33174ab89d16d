import { toDecimalNumber } from '../../platform/money.js';
import type { AddressRow, CustomerRow, CustomerWithAddresses } from './customers.repository.js';

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

/** The customer's own view (/api/customer): camelCase. */
export function profileForCustomer(row: CustomerRow) {
  return {
    id: row.id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    phone: row.phone,
    createdAt: row.created_at.toISOString(),
  };
}

export function addressForCustomer(row: AddressRow) {
  return {
    id: row.id,
    line1: row.line1,
    line2: row.line2,
    city: row.city,
    region: row.region,
    postalCode: row.postal_code,
    country: row.country,
    phone: row.phone,
    isDefault: row.is_default,
    createdAt: row.created_at.toISOString(),
  };
}
