import type { Timestamp } from '../../platform/db/schema.js';

/** A sign-up waiting for the 6-digit code mailed to its address (one per address). */
export interface SignupRequestsTable {
  /** Lower-case. */
  email: string;
  code_hash: Buffer;
  /** scrypt, as admin_users.password_hash: the password is hashed at the request, never kept. */
  password_hash: string;
  store_name: string;
  currency: string;
  timezone: string;
  attempts: number;
  expires_at: Date;
  created_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    signup_requests: SignupRequestsTable;
  }
}
