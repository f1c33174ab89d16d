import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

/** A single-use link to join a store's staff, valid 7 days; the token itself is never stored. */
export interface StaffInvitationsTable {
  id: string;
  store_id: string;
  email: string;
  permissions: ColumnType<string[], string[] | undefined>;
  token_hash: Buffer;
  invited_by: string | null;
  expires_at: Date;
  accepted_at: ColumnType<Date | null, Date | null | undefined>;
  accepted_by: ColumnType<string | null, string | null | undefined>;
  revoked_at: ColumnType<Date | null, Date | null | undefined>;
  created_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    staff_invitations: StaffInvitationsTable;
  }
}
