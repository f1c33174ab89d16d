import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

export interface CustomersTable {
  id: string;
  store_id: string;
  email: string;
  first_name: ColumnType<string | null, string | null | undefined>;
  last_name: ColumnType<string | null, string | null | undefined>;
  phone: ColumnType<string | null, string | null | undefined>;
  orders_count: ColumnType<number, number | undefined, number>;
  /** Minor units paid on the customer's orders that are not cancelled. */
  total_spent: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    customers: CustomersTable;
  }
}

export interface CustomerAddressesTable {
  id: string;
  store_id: string;
  customer_id: string;
  line1: string;
  line2: string | null;
  city: string;
  region: string | null;
  postal_code: string;
  country: string;
  phone: string | null;
  is_default: boolean;
  created_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    customer_addresses: CustomerAddressesTable;
  }
}
