import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

export type StoreStatus = 'active' | 'disabled' | 'suspended' | 'deleting';
export type MemberRole = 'owner' | 'staff';

export interface StoresTable {
  id: string;
  slug: string;
  name: string;
  /** suspended: closed by an operator, nothing deleted; deleting: the job runner is removing it (§14). */
  status: ColumnType<StoreStatus, StoreStatus | undefined>;
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
  suspended_at: ColumnType<Date | null, Date | null | undefined>;
  suspension_reason: ColumnType<string | null, string | null | undefined>;
  deletion_requested_at: ColumnType<Date | null, Date | null | undefined>;
  /** The deletion job's lease: another worker takes the store over once it has passed (a crash). */
  deletion_locked_until: ColumnType<Date | null, Date | null | undefined>;
  /** The onboarding checklist's own marks (e.g. `{ "shop_viewed_at": "…" }`); others are derived. */
  onboarding: ColumnType<Record<string, unknown>, string | undefined, string>;
  last_activity_at: ColumnType<Date | null, Date | null | undefined>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AdminUsersTable {
  id: string;
  email: string;
  password_hash: string;
  name: ColumnType<string | null, string | null | undefined>;
  created_at: Timestamp;
  last_login_at: ColumnType<Date | null, Date | null | undefined>;
}

export interface AdminUserStoresTable {
  admin_user_id: string;
  store_id: string;
  role: ColumnType<MemberRole, MemberRole | undefined>;
  /** A staff member's API scopes (an owner has every scope whatever this holds). */
  permissions: ColumnType<string[], string[] | undefined>;
  created_at: Timestamp;
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
