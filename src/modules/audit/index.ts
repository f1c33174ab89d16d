export type { AuditEntry } from './audit.repository.js';
export type { AuditActorType } from './audit.tables.js';
export { recordAudit } from './record-audit.js';
