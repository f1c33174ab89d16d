import { type Compilable, CompiledQuery, type InsertObject } from 'kysely';
import type { Executor } from './database.js';
import type { Database } from './schema.js';

/**
 * Writes whose results nobody reads, sent to PostgreSQL as one statement: each becomes a
 * data-modifying CTE of `WITH w0 AS (…), w1 AS (…) SELECT …`. PostgreSQL runs every such CTE exactly
 * once and to completion, all in the statement's snapshot, and checks foreign keys at the end of the
 * statement, so an order and its lines can go together. One round trip instead of one per write:
 * inside a transaction that holds row locks (checkout), round trips are what the throughput pays for.
 *
 * The writes must not depend on one another's effects (a CTE does not see its siblings' rows) and
 * their SQL must hold no `$n` text other than parameters (true of Kysely's compiled queries).
 */
export class WriteBatch {
  private readonly writes: CompiledQuery[] = [];
  private readonly rows = new Map<keyof Database, unknown[]>();
  /** Channel → always, or only when one of these writes (with RETURNING) produced a row. */
  private readonly channels = new Map<string, 'always' | number[]>();

  constructor(readonly db: Executor) {}

  /** Adds a write; returns its place in the batch (for notifyAtCommit's `ifRowsFrom`). */
  add(query: Compilable): number {
    return this.writes.push(query.compile()) - 1;
  }

  /**
   * A row for `table`. All rows of a table go in one multi-row INSERT, in the order they were added,
   * so a sequence column (the outbox's `seq`) numbers them in that order; sibling CTEs have no order.
   */
  insertRow<T extends keyof Database>(table: T, row: InsertObject<Database, T>): void {
    const rows = this.rows.get(table);
    if (rows) rows.push(row);
    else this.rows.set(table, [row]);
  }

  /**
   * NOTIFY `channel` with the batch: PostgreSQL delivers it at commit, never on rollback. With
   * `ifRowsFrom`, only when that write (which must have RETURNING) wrote a row.
   */
  notifyAtCommit(channel: string, ifRowsFrom?: number): void {
    const seen = this.channels.get(channel);
    if (seen === 'always') return;
    if (ifRowsFrom === undefined) this.channels.set(channel, 'always');
    else this.channels.set(channel, [...(seen ?? []), ifRowsFrom]);
  }

  get size(): number {
    return this.writes.length + this.rows.size;
  }

  async run(): Promise<void> {
    for (const [table, rows] of this.rows) {
      this.writes.push(
        this.db
          .insertInto(table)
          .values(rows as never)
          .compile(),
      );
    }
    this.rows.clear();
    const writes = this.writes.splice(0);
    const channels = [...this.channels];
    this.channels.clear();
    const first = writes[0];
    if (!first) return;
    if (writes.length === 1 && channels.length === 0) {
      await this.db.executeQuery(first);
      return;
    }
    const parameters: unknown[] = [];
    const ctes = writes.map((write, index) => {
      const offset = parameters.length;
      parameters.push(...write.parameters);
      const text = write.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
      return `w${index} AS (${text})`;
    });
    const notifies = channels.map(([channel, when]) => {
      parameters.push(channel);
      const notify = `pg_notify($${parameters.length}, '')`;
      if (when === 'always') return notify;
      const rows = when.map((index) => `SELECT 1 FROM w${index}`).join(' UNION ALL ');
      return `(SELECT ${notify} FROM (${rows} LIMIT 1) AS written)`;
    });
    const select = notifies.length ? notifies.join(', ') : '1';
    await this.db.executeQuery(CompiledQuery.raw(`WITH ${ctes.join(', ')} SELECT ${select}`, parameters));
  }
}

/** Where a write goes: executed now on a connection or transaction, or added to a batch. */
export type Writer = Executor | WriteBatch;

/** Runs the write built on `to` now, or adds it to `to` when that is a batch. */
export async function write(to: Writer, build: (db: Executor) => Compilable): Promise<void> {
  if (to instanceof WriteBatch) {
    to.add(build(to.db));
    return;
  }
  await to.executeQuery(build(to).compile());
}
