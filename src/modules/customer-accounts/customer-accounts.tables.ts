import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

export interface CustomerLoginCodesTable {
  id: string;
  store_id: string;
  email: string;
  /** HMAC-SHA256 of the code under APP_SECRET: a leaked table does not give the codes away. */
  code_hash: Buffer;
  attempts: ColumnType<number, number | undefined, number>;
  expires_at: Date;
  consumed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
}

export interface CustomerSessionsTable {
  id: string;
  store_id: string;
  customer_id: string;
  /** SHA-256 of the 256-bit token. */
  token_hash: Buffer;
  expires_at: Date;
  created_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    customer_login_codes: CustomerLoginCodesTable;
    customer_sessions: CustomerSessionsTable;
  }
}
