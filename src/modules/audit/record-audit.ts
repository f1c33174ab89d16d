import type { Executor } from '../../platform/db/database.js';
import { newId } from '../../platform/ids.js';
import { type AuditEntry, insertAuditEntry } from './audit.repository.js';

/**
 * Records one audit entry on `tx`, the transaction of the write it records. For writes outside a
 * merchant request (an operator's suspension, a job's), where the per-request recording cannot see them.
 */
export function recordAudit(tx: Executor, entry: Omit<AuditEntry, 'id'>): Promise<void> {
  return insertAuditEntry(tx, { id: newId(), ...entry });
}
