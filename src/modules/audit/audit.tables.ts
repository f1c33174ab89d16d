import type { Timestamp } from '../../platform/db/schema.js';

export type AuditActorType = 'user' | 'api_key' | 'system';

/** One row per write through /api/v1, /api/admin and the dashboard, in the write's transaction. */
export interface AuditLogTable {
  id: string;
  store_id: string;
  actor_type: AuditActorType;
  actor_id: string | null;
  /** As it was at the time (a user's name or e-mail, a key's name). */
  actor_name: string | null;
  /** `resource.verb`: "order.cancel", "product.update", "staff.invite". */
  action: string;
  resource_type: string;
  resource_id: string | null;
  ip: string | null;
  created_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    audit_log: AuditLogTable;
  }
}
