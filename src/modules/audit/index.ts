export type { AuditEntry } from './audit.repository.js';
export { auditRoutes } from './audit.routes.js';
export { AUDIT_RETENTION_DAYS, type AuditLog, auditLogRetention, createAuditLog } from './audit.service.js';
export type { AuditActorType } from './audit.tables.js';
export { recordAudit } from './record-audit.js';
