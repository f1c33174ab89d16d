import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

export interface CustomersTable {
  id: string;
  store_id: string;
  email: string;
  first_name: ColumnType<string | null, string | null | undefined>;
  last_name: ColumnType<string | null, string | null | undefined>;
  phone: ColumnType<string | null, string | null | undefined>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    customers: CustomersTable;
  }
}
