import type { Timestamp } from '../../platform/db/schema.js';

export interface AdminSessionsTable {
  id: string;
  admin_user_id: string;
  store_id: string;
  /** SHA-256 of the 256-bit token. */
  token_hash: Buffer;
  expires_at: Date;
  created_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    admin_sessions: AdminSessionsTable;
  }
}
