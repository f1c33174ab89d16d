import type { Executor } from '../../platform/db/database.js';
import type { AuditActorType } from './audit.tables.js';

export interface AuditEntry {
  id: string;
  storeId: string;
  actor: { type: AuditActorType; id: string | null; name: string | null };
  action: string;
  resourceType: string;
  resourceId: string | null;
  ip: string | null;
}

/** One audit row, on the executor of the write it records (its transaction), so both commit or neither. */
export async function insertAuditEntry(db: Executor, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: entry.id,
      store_id: entry.storeId,
      actor_type: entry.actor.type,
      actor_id: entry.actor.id,
      actor_name: entry.actor.name,
      action: entry.action,
      resource_type: entry.resourceType,
      resource_id: entry.resourceId,
      ip: entry.ip,
    })
    .execute();
}
