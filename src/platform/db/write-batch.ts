import { randomBytes } from 'node:crypto';
import type { Compilable, Insertable } from 'kysely';
import type { Executor } from './database.js';
import type { Database } from './schema.js';
import {
  asFragment,
  compiled,
  fromPieces,
  isSqlText,
  joinSql,
  rawSql,
  rebind,
  type SqlText,
  sqlText,
} from './sql-text.js';

/** A row for a table: its columns' values, or SQL spliced as it is (`sqlText\`${id}::uuid\``, `now()`). */
export type RowOf<T extends keyof Database> = {
  [C in keyof Insertable<Database[T]>]: Insertable<Database[T]>[C] | SqlText;
};

/**
 * Writes whose results nobody reads, sent to PostgreSQL as one statement: each becomes a
 * data-modifying CTE of `WITH w0 AS (…), w1 AS (…) SELECT …`. PostgreSQL runs every such CTE exactly
 * once and to completion, all in the statement's snapshot, and checks foreign keys at the end of the
 * statement, so an order and its lines can go together. One round trip instead of one per write:
 * inside a transaction that holds row locks (checkout), round trips are what the throughput pays for.
 *
 * The writes must not depend on one another's effects (a CTE does not see its siblings' rows) and
 * their SQL must hold no `$n` text other than parameters (true of sqlText and of Kysely's compiled
 * queries).
 */
export class WriteBatch {
  private readonly writes: SqlText[] = [];
  private readonly rows = new Map<keyof Database, Record<string, unknown>[]>();
  /** Channel → always, or only when one of these writes (with RETURNING) produced a row. */
  private readonly channels = new Map<string, 'always' | number[]>();

  constructor(readonly db: Executor) {}

  /** Adds a write; returns its place in the batch (for notifyAtCommit's `ifRowsFrom`). */
  add(query: SqlText | Compilable): number {
    return this.writes.push('compile' in query ? query.compile() : query) - 1;
  }

  /**
   * A row for `table`. All rows of a table go in one multi-row INSERT, in the order they were added,
   * so a sequence column (the outbox's `seq`) numbers them in that order; sibling CTEs have no order.
   */
  insertRow<T extends keyof Database>(table: T, row: RowOf<T>): void {
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

  /** Every write, the rows' INSERTs last; empties the batch. */
  private take(): { writes: SqlText[]; channels: [string, 'always' | number[]][] } {
    for (const [table, rows] of this.rows) this.writes.push(insertRows(table, rows));
    this.rows.clear();
    const channels = [...this.channels];
    this.channels.clear();
    return { writes: this.writes.splice(0), channels };
  }

  /**
   * The batch as CTEs for a statement that defines the CTE `gate` (checkout: the order counter taken
   * in the stock statement): every write happens only when `gate` has a row, in that statement, and
   * LATE_NUMBER becomes the gate's `number`. Everything is built now, before the statement that takes
   * the row locks is sent. Empties the batch, as `run` does.
   */
  gated(gate: string): GatedWrites {
    const { writes, channels } = this.take();
    const ctes = writes.map((write, index) => {
      const text = withLateNumber({ sql: gatedText(write.sql, gate), parameters: write.parameters }, gate);
      return sqlText`, ${rawSql(`w${index}`)} AS (${text})`;
    });
    const columns = channels.map(([channel, when], index) => {
      const rows =
        when === 'always' ? gate : `(${when.map((w) => `SELECT 1 FROM w${w}`).join(' UNION ALL ')})`;
      return sqlText`, (SELECT pg_notify(${channel}, '') FROM ${rawSql(rows)} AS written LIMIT 1) AS ${rawSql(`n${index}`)}`;
    });
    return { ctes: joinSql(ctes, ''), columns: joinSql(columns, '') };
  }

  async run(): Promise<void> {
    const { writes, channels } = this.take();
    const first = writes[0];
    if (!first) return;
    if (writes.length === 1 && channels.length === 0) {
      await this.db.executeQuery(compiled(first));
      return;
    }
    const ctes = joinSql(
      writes.map((write, index) => sqlText`${rawSql(`w${index}`)} AS (${asFragment(write)})`),
    );
    const notifies = channels.map(([channel, when]) => {
      if (when === 'always') return sqlText`pg_notify(${channel}, '')`;
      const rows = when.map((index) => `SELECT 1 FROM w${index}`).join(' UNION ALL ');
      return sqlText`(SELECT pg_notify(${channel}, '') FROM (${rawSql(rows)} LIMIT 1) AS written)`;
    });
    const select = notifies.length ? joinSql(notifies) : rawSql('1');
    await this.db.executeQuery(compiled(sqlText`WITH ${ctes} SELECT ${select}`));
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
  ctes: SqlText;
  /** `, <notify> AS n0, …`: columns the statement's final SELECT must carry (they run the NOTIFYs). */
  columns: SqlText;
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

/** gateSql's answers, per gate and text (a shape's texts repeat at every order). */
const gatedTexts = new Map<string, Map<string, string>>();

function gatedText(text: string, gate: string): string {
  let texts = gatedTexts.get(gate);
  if (!texts) {
    texts = new Map();
    gatedTexts.set(gate, texts);
  }
  let gated = texts.get(text);
  if (gated === undefined) {
    gated = gateSql(text, gate);
    if (texts.size < 1000) texts.set(text, gated);
  }
  return gated;
}

/** The write with LATE_NUMBER (alone, or inside a string parameter) bound to `gate`'s number. */
function withLateNumber(write: SqlText, gate: string): SqlText {
  const number = rawSql(`(SELECT number FROM ${gate})`);
  return rebind(write, (value) => {
    if (value === LATE_NUMBER) return number;
    if (typeof value === 'string' && value.includes(LATE_NUMBER))
      return sqlText`replace(${value}::text, ${LATE_NUMBER}, ${number}::text)`;
    return value;
  });
}

/** `insertRows`' text pieces for rows made only of parameters, per table, columns and row count. */
const insertPieces = new Map<string, string[]>();

/**
 * Rows' `INSERT … VALUES` without Kysely's query builder. Each value is a parameter, except a
 * `sqlText` value, which is spliced (with its parameters); undefined columns are left out, as Kysely
 * leaves them out, and every row must define the same columns. Column names come from our own row
 * types, never from input.
 */
export function insertRows<T extends keyof Database>(table: T, rows: readonly RowOf<T>[]): SqlText {
  const first = rows[0] as Record<string, unknown> | undefined;
  if (!first) throw new Error(`insertRows: no rows for ${table}`);
  const columns = Object.keys(first).filter((column) => first[column] !== undefined);
  const values: unknown[] = [];
  let spliced = false;
  for (const row of rows as readonly Record<string, unknown>[]) {
    let defined = 0;
    for (const column in row) if (row[column] !== undefined) defined++;
    for (const column of columns) {
      const value = row[column];
      if (value === undefined) throw new Error(`insertRows: ${table}.${column} missing from a row`);
      spliced ||= isSqlText(value);
      values.push(value);
    }
    if (defined !== columns.length) throw new Error(`insertRows: rows of ${table} define different columns`);
  }
  const key = `${table}(${columns.join(',')})×${rows.length}`;
  let strings = insertPieces.get(key);
  if (!strings) {
    // The text between the parameters: `insert … values (`, `, ` within a row, `), (` between rows.
    strings = [`insert into "${table}" (${columns.map((column) => `"${column}"`).join(', ')}) values (`];
    for (let index = 1; index <= rows.length * columns.length; index++)
      strings.push(index % columns.length ? ', ' : index < rows.length * columns.length ? '), (' : ')');
    insertPieces.set(key, strings);
  }
  const query = fromPieces(strings, values);
  // SQL among the values is spliced into the text (rebind puts each value back, splicing fragments).
  return spliced ? rebind(query, (value) => value) : query;
}

/** Where a write goes: executed now on a connection or transaction, or added to a batch. */
export type Writer = Executor | WriteBatch;

/**
 * Runs the write now, or adds it to `to` when that is a batch: a statement as text (sqlText), or
 * built with Kysely on the executor it will run on.
 */
export async function write(to: Writer, statement: SqlText | ((db: Executor) => Compilable)): Promise<void> {
  if (to instanceof WriteBatch) {
    to.add(typeof statement === 'function' ? statement(to.db) : statement);
    return;
  }
  await to.executeQuery(typeof statement === 'function' ? statement(to).compile() : compiled(statement));
}
