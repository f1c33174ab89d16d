import type { Logger } from 'pino';
import type { Db } from '../../platform/db/database.js';
import { deleteInBatches } from '../../platform/db/delete-in-batches.js';
import type { RequestContext } from '../../platform/http/context.js';
import type { ListRequest } from '../../platform/http/cursor.js';
import { offsetOf } from '../../platform/http/envelopes.js';
import type { PeriodicTaskOptions } from '../../platform/jobs.js';
import {
  type AuditFilter,
  deleteAuditEntriesBefore,
  insertAuditEntry,
  listAuditEntries,
  setAuditResource,
} from './audit.repository.js';

/** The store's audit log: its reading (GET /api/v1/audit-log) and the row writer of the per-request recording. */
export function createAuditLog(db: Db) {
  return {
    list: (ctx: RequestContext, page: ListRequest<string>, filter: AuditFilter) =>
      listAuditEntries(db, ctx.storeId, filter, {
        offset: offsetOf(page),
        limit: page.limit,
        after: page.after,
      }),

    /** The writer the composition root gives the HTTP layer's recording (platform/http/audit-recording.ts). */
    write: { insert: insertAuditEntry, setResource: setAuditResource },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;

/** Entries are kept this long (contract §14). */
export const AUDIT_RETENTION_DAYS = 365;

/**
 * The job runner's pruning of the log: entries older than `days`, hourly and at start, in bounded
 * batches, each its own short statement (a large log never holds a long transaction or many locks).
 */
export const auditLogRetention = (
  db: Db,
  logger: Logger,
  options: { days?: number; batchSize?: number; everyMs?: number } = {},
): PeriodicTaskOptions => ({
  name: 'audit_log_retention',
  everyMs: options.everyMs ?? 3600_000,
  async run(signal) {
    const before = new Date(Date.now() - (options.days ?? AUDIT_RETENTION_DAYS) * 86_400_000);
    const { deleted } = await deleteInBatches((limit) => deleteAuditEntriesBefore(db, before, limit), {
      batchSize: options.batchSize ?? 1000,
      signal,
    });
    if (deleted > 0) logger.info({ task: 'audit_log_retention', audit_log: deleted }, 'old rows pruned');
  },
});
