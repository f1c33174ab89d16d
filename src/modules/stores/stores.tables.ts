import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

export interface StoresTable {
  id: string;
  slug: string;
  name: string;
  status: ColumnType<'active' | 'disabled', 'active' | 'disabled' | undefined>;
  currency: ColumnType<string, string | undefined>;
  timezone: ColumnType<string, string | undefined>;
  logo: ColumnType<string | null, string | null | undefined>;
  colors: ColumnType<Record<string, string>, string | undefined, string>;
  low_stock_threshold: ColumnType<number, number | undefined>;
  shipping_flat_rate: ColumnType<number, number | undefined>;
  free_shipping_threshold: ColumnType<number | null, number | null | undefined>;
  tax_rate_bps: ColumnType<number, number | undefined>;
  app_config: ColumnType<Record<string, unknown>, string | undefined, string>;
  /** The web shop's own hostname, lower-case (`shop.example.com`), unique across stores. */
  custom_domain: ColumnType<string | null, string | null | undefined>;
  /** Where buyers' replies and the merchant's notifications go (§12, §13); null: the owner's e-mail. */
  contact_email: ColumnType<string | null, string | null | undefined>;
  /** Catalogue prices and shipping rates contain the tax (§12). */
  prices_include_tax: ColumnType<boolean, boolean | undefined>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AdminUsersTable {
  id: string;
  email: string;
  password_hash: string;
  created_at: Timestamp;
  last_login_at: ColumnType<Date | null, Date | null | undefined>;
}

export interface AdminUserStoresTable {
  admin_user_id: string;
  store_id: string;
  role: ColumnType<string, string | undefined>;
}

export interface ApiKeysTable {
  id: string;
  store_id: string;
  name: string;
  key_prefix: string;
  key_hash: Buffer;
  scopes: string[];
  created_at: Timestamp;
  last_used_at: ColumnType<Date | null, Date | null | undefined>;
  revoked_at: ColumnType<Date | null, Date | null | undefined>;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    stores: StoresTable;
    admin_users: AdminUsersTable;
    admin_user_stores: AdminUserStoresTable;
    api_keys: ApiKeysTable;
  }
}
