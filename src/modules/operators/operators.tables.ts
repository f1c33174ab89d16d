import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

/** Whoever runs the platform: not a store's user; signs in to /operator with its own cookie. */
export interface OperatorsTable {
  id: string;
  email: string;
  password_hash: string;
  created_at: Timestamp;
  last_login_at: ColumnType<Date | null, Date | null | undefined>;
}

export interface OperatorSessionsTable {
  id: string;
  operator_id: string;
  /** SHA-256 of the 256-bit token. */
  token_hash: Buffer;
  expires_at: Date;
  created_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    operators: OperatorsTable;
    operator_sessions: OperatorSessionsTable;
  }
}
