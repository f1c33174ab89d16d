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

/** Writes audit rows on the executor given (the write's transaction); the composition root passes the audit module's. */
export interface AuditWriter {
  insert(db: Executor, row: AuditRow): Promise<void>;
  /** Names another resource in a row inserted earlier in the same transaction. */
  setResource(db: Executor, row: Pick<AuditRow, 'id' | 'storeId' | 'resourceId'>): Promise<void>;
}

/**
 * The audit row of one write request, waiting for the write: it rides on the first transaction of the
 * request that commits (so a rolled-back write leaves no row), once. Creating services name the
 * resource they created (noteCreatedResource), as the path could not.
 *
 * A row that already names its resource (an update, a delete, an action on the resource of the
 * path) boards the transaction at its BEGIN, before the work takes its row locks: a write on a hot
 * row (one product PATCHed by many clients) would otherwise hold that row's lock for one more
 * statement, the INSERT before the COMMIT. It still commits or rolls back with the work. A creation's
 * row waits for the work (which names the resource) and goes in just before the commit.
 */
export class PendingAudit implements CommitRider {
  /** Written on a transaction that committed, or is committing now. */
  written = false;
  /** The request ran a dry run (a preview rolled back): without a transaction that committed, it changed nothing. */
  previewed = false;
  /** The row inserted on the transaction still open, and the resource it names. */
  private inserted: { tx: Executor; id: string; resourceId: string | null } | undefined;

  constructor(
    readonly entry: Omit<AuditRow, 'id'>,
    private readonly write: AuditWriter,
  ) {}

  async board(tx: Executor): Promise<void> {
    if (this.written || this.entry.resourceId === null) return;
    await this.insert(tx);
  }

  async ride(tx: Executor): Promise<void> {
    const inserted = this.inserted;
    if (inserted?.tx === tx) {
      // The work named the resource it created after the row boarded (a refund, created under its
      // order's path): the row names it too.
      if (inserted.resourceId !== this.entry.resourceId) {
        await this.write.setResource(tx, {
          id: inserted.id,
          storeId: this.entry.storeId,
          resourceId: this.entry.resourceId,
        });
        inserted.resourceId = this.entry.resourceId;
      }
      return;
    }
    if (this.written) return;
    await this.insert(tx);
  }

  private async insert(tx: Executor): Promise<void> {
    this.written = true;
    const row = { id: newId(), ...this.entry };
    const inserted = { tx, id: row.id, resourceId: row.resourceId };
    this.inserted = inserted;
    // A commit that fails (or a later statement's error) takes the row with it: the next
    // transaction of the request, if any commits, carries it instead.
    afterRollback(() => {
      this.written = false;
      if (this.inserted === inserted) this.inserted = undefined;
    });
    await this.write.insert(tx, row);
  }

  dryRun(): void {
    this.previewed = true;
  }

  /** For a write that used no transaction: the row on its own, right after the write succeeded. */
  async writeAlone(db: Executor): Promise<void> {
    if (this.written || this.previewed) return;
    this.written = true;
    await this.write.insert(db, { id: newId(), ...this.entry });
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
