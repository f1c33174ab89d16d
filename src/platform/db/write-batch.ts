import { randomBytes } from 'node:crypto';
import { type Compilable, CompiledQuery, type InsertObject, type RawBuilder, sql } from 'kysely';
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

  /**
   * The batch as CTEs for a statement that defines the CTE `gate` (checkout: the order counter taken
   * in the stock statement): every write happens only when `gate` has a row, in that statement, and
   * LATE_NUMBER becomes the gate's `number`. Everything is built and compiled now, before the
   * statement that takes the row locks is sent. Empties the batch, as `run` does.
   */
  gated(gate: string): GatedWrites {
    const writes = this.writes.splice(0);
    for (const [table, rows] of this.rows) {
      writes.push(
        this.db
          .insertInto(table)
          .values(rows as never)
          .compile(),
      );
    }
    this.rows.clear();
    const channels = [...this.channels];
    this.channels.clear();
    const ctes = writes.map(
      (write, index) =>
        sql`, ${sql.raw(`w${index}`)} AS (${rawOf(gateSql(write.sql, gate), write.parameters, gate)})`,
    );
    const columns = channels.map(([channel, when], index) => {
      const rows =
        when === 'always' ? gate : `(${when.map((w) => `SELECT 1 FROM w${w}`).join(' UNION ALL ')})`;
      return sql`, (SELECT pg_notify(${channel}, '') FROM ${sql.raw(rows)} AS written LIMIT 1) AS ${sql.raw(`n${index}`)}`;
    });
    return { ctes: sql.join(ctes, sql.raw('')), columns: sql.join(columns, sql.raw('')) };
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

/**
 * A value known only inside the statement that runs a gated batch (`WriteBatch.gated`): the gate's
 * `number` (checkout: the order number, taken from the counter in the stock statement). It stands
 * for the number as a parameter of its own, or inside a string parameter (an event's JSON, a push's
 * title); the random part keeps a shopper's input from ever spelling it.
 */
export const LATE_NUMBER = `~late-number-${randomBytes(12).toString('hex')}~`;

/** The batch as CTEs to append to a statement that defines the CTE `gate` (see `WriteBatch.gated`). */
export interface GatedWrites {
  /** `, w0 AS (…), w1 AS (…)`. */
  ctes: RawBuilder<unknown>;
  /** `, <notify> AS n0, …`: columns the statement's final SELECT must carry (they run the NOTIFYs). */
  columns: RawBuilder<unknown>;
}

/** The top-level parenthesised tuples of `text` (a VALUES list), quotes respected. */
function tuples(text: string): string[] {
  const found: string[] = [];
  let depth = 0;
  let start = -1;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    if (quoted) continue;
    if (c === '(' && depth++ === 0) start = i + 1;
    else if (c === ')' && --depth === 0) found.push(text.slice(start, i));
  }
  return found;
}

/**
 * The write rewritten to write nothing unless `gate` has a row: `INSERT … VALUES (…)` becomes
 * `INSERT … SELECT … FROM gate` (several rows: `UNION ALL`, in order, so their parameters must carry
 * casts), `INSERT … SELECT … FROM x` joins the gate to its first FROM, `UPDATE … WHERE c` (without
 * RETURNING) becomes `… WHERE (c) AND EXISTS (SELECT 1 FROM gate)`. Anything else is refused.
 */
function gateSql(text: string, gate: string): string {
  const values = /^\s*(insert into [^(]+\([^)]*\))\s+values\s+(.*)$/is.exec(text);
  if (values?.[1] && values[2] && !/\)\s*(on conflict|returning)\b/i.test(values[2])) {
    const rows = tuples(values[2]).map((row) => `SELECT ${row} FROM ${gate}`);
    return `${values[1]} ${rows.join(' UNION ALL ')}`;
  }
  if (/^\s*insert into [^(]+\([^)]*\)\s+select\b/is.test(text))
    return text.replace(/\bfrom\b/i, `FROM ${gate},`);
  const update = /^\s*(update .*?\bwhere\b)(.*)$/is.exec(text);
  if (update?.[1] && update[2] && !/\breturning\b/i.test(update[2]))
    return `${update[1]} (${update[2]}) AND EXISTS (SELECT 1 FROM ${gate})`;
  throw new Error(`WriteBatch.gated: cannot gate ${text.slice(0, 60)}…`);
}

/** Compiled SQL back to a builder (so it can join another statement), with LATE_NUMBER bound to `gate`. */
function rawOf(text: string, parameters: readonly unknown[], gate: string): RawBuilder<unknown> {
  const pieces = text.split(/\$(\d+)/);
  const number = sql.raw(`(SELECT number FROM ${gate})`);
  return sql.join(
    pieces.map((piece, index) => {
      if (index % 2 === 0) return sql.raw(piece);
      const value = parameters[Number(piece) - 1];
      if (value === LATE_NUMBER) return number;
      if (typeof value === 'string' && value.includes(LATE_NUMBER))
        return sql`replace(${value}::text, ${LATE_NUMBER}, ${number}::text)`;
      return sql`${value}`;
    }),
    sql.raw(''),
  );
}

/** SQL text of `insertRowQuery`, per table and column list. */
const insertTexts = new Map<string, string>();

/**
 * One row's `INSERT … VALUES` without Kysely's query builder: the SQL text of a table and column
 * list is made once and kept, and each call only lists the row's values as parameters (Kysely's
 * builder and compiler cost checkout about as much JavaScript as the rest of the order's writes).
 * The row's plain values (strings, numbers, booleans, null, Dates) only: undefined columns are left
 * out as Kysely leaves them out, and a row holding any other value (an SQL expression) goes through
 * Kysely. Column names come from our own row types, never from input.
 */
export function insertRowQuery<T extends keyof Database>(
  db: Executor,
  table: T,
  row: InsertObject<Database, T>,
): Compilable {
  const columns: string[] = [];
  const parameters: unknown[] = [];
  for (const [column, value] of Object.entries(row)) {
    if (value === undefined) continue;
    if (value !== null && typeof value === 'object' && !(value instanceof Date))
      return db.insertInto(table).values(row);
    columns.push(column);
    parameters.push(value);
  }
  const key = `${table}(${columns.join(',')})`;
  let text = insertTexts.get(key);
  if (!text) {
    const names = columns.map((column) => `"${column}"`).join(', ');
    const places = columns.map((_, index) => `$${index + 1}`).join(', ');
    text = `insert into "${table}" (${names}) values (${places})`;
    insertTexts.set(key, text);
  }
  const query = CompiledQuery.raw(text, parameters);
  return { compile: () => query };
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
