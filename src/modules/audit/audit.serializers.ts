import type { Selectable } from 'kysely';
import type { AuditLogTable } from './audit.tables.js';

export function auditEntryForMerchant(row: Selectable<AuditLogTable>) {
  return {
    id: row.id,
    actor: { type: row.actor_type, id: row.actor_id, name: row.actor_name },
    action: row.action,
    resource_type: row.resource_type,
    resource_id: row.resource_id,
    ip: row.ip,
    created_at: row.created_at.toISOString(),
  };
}
