import { AsyncLocalStorage } from 'node:async_hooks';
import type { Executor } from './db/database.js';
import { afterRollback, type CommitRider, runWithCommitRider } from './db/transaction.js';
import { newId } from './ids.js';

/** One audit row as the audit module stores it (modules/audit's AuditEntry has the same shape). */
export interface AuditRow {
  id: string;
  storeId: string;
  actor: { type: 'user' | 'api_key' | 'system'; id: string | null; name: string | null };
  action: string;
  resourceType: string;
  resourceId: string | null;
  ip: string | null;
}

/** Inserts one audit row on the executor given (the write's transaction); the composition root passes the audit module's. */
export type AuditWriter = (db: Executor, row: AuditRow) => Promise<void>;

/**
 * The audit row of one write request, waiting for the write: it rides on the first transaction of the
 * request that commits (so a rolled-back write leaves no row), once. Creating services name the
 * resource they created (noteCreatedResource), as the path could not.
 */
export class PendingAudit implements CommitRider {
  /** Written on a transaction that committed, or is committing now. */
  written = false;
  /** The request ran a dry run (a preview rolled back): without a transaction that committed, it changed nothing. */
  previewed = false;

  constructor(
    readonly entry: Omit<AuditRow, 'id'>,
    private readonly write: AuditWriter,
  ) {}

  async ride(tx: Executor): Promise<void> {
    if (this.written) return;
    this.written = true;
    // A commit that fails (or a later statement's error) takes the row with it: the next
    // transaction of the request, if any commits, carries it instead.
    afterRollback(() => {
      this.written = false;
    });
    await this.write(tx, { id: newId(), ...this.entry });
  }

  dryRun(): void {
    this.previewed = true;
  }

  /** For a write that used no transaction: the row on its own, right after the write succeeded. */
  async writeAlone(db: Executor): Promise<void> {
    if (this.written || this.previewed) return;
    this.written = true;
    await this.write(db, { id: newId(), ...this.entry });
  }
}

const pendingAudits = new AsyncLocalStorage<PendingAudit>();

/** Runs `fn` (a request's handling) with `pending` as its audit row: its transactions carry it. */
export function runWithPendingAudit<T>(pending: PendingAudit, fn: () => T): T {
  return pendingAudits.run(pending, () => runWithCommitRider(pending, fn));
}

/**
 * A creating service names the resource it created, in its creating transaction: the request's audit
 * row (if this code runs for one whose resource type is `type`) records its id. A resource of another
 * type created on the way (the customer of a new order) is not the request's resource and is ignored.
 */
export function noteCreatedResource(resource: { type: string; id: string }): void {
  const pending = pendingAudits.getStore();
  if (!pending || pending.entry.resourceType !== resource.type) return;
  const previous = pending.entry.resourceId;
  pending.entry.resourceId = resource.id;
  // A creation rolled back (and maybe retried) must not leave its id behind.
  afterRollback(() => {
    pending.entry.resourceId = previous;
  });
}
