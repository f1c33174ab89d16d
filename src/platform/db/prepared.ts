import type { CompiledQuery } from 'kysely';
import type pg from 'pg';

/**
 * Statements PostgreSQL keeps parsed, per connection: a statement sent unnamed is parsed, analysed
 * and planned at every execution, and for checkout's two large statements (readTogether's, and the
 * stock statement that carries the order's writes, several kilobytes and a dozen CTEs) that was
 * about a third of PostgreSQL's CPU per order, more than the rest of the transaction's work. Named,
 * each connection parses a text once and keeps its plan (pg sends Parse only the first time).
 *
 * Only texts a caller marks are named, and at most MAX_NAMED of them (beyond, a text runs unnamed as
 * before): each is a prepared statement on every pooled connection, held until the connection
 * closes. Callers mark statements whose text takes a bounded number of shapes (a fixed call site,
 * parameters as `$n`) and whose result columns do not follow a table's columns (no `SELECT *` at the
 * top level): PostgreSQL re-plans a prepared statement when a table it reads changes, but refuses
 * one whose result columns would change.
 */
const MAX_NAMED = 200;
const names = new Map<string, string>();

/** Marks `query`'s text to be sent as a named statement; returns the query as it is. */
export function prepared<Q extends CompiledQuery<unknown>>(query: Q): Q {
  if (!names.has(query.sql) && names.size < MAX_NAMED) names.set(query.sql, `emporium_${names.size + 1}`);
  return query;
}

/** The statement name of a marked text (database.ts's client sends it with the query). */
export function statementName(text: string): string | undefined {
  return names.get(text);
}

/**
 * Makes `Client` send a marked text (Kysely's `query(text, values)`) as a named statement. Anything
 * else (unmarked texts, query objects, callbacks) goes through unchanged.
 */
export function sendMarkedAsNamed(Client: typeof pg.Client): void {
  // The base class's query is looked up at each call, so a wrapper installed on it later still runs.
  const base = Object.getPrototypeOf(Client.prototype) as { query: (...args: unknown[]) => unknown };
  Client.prototype.query = function query(this: pg.Client, ...args: unknown[]) {
    const [text, values] = args;
    const name = args.length === 2 && typeof text === 'string' ? statementName(text) : undefined;
    if (name && Array.isArray(values)) return base.query.call(this, { name, text, values });
    return base.query.apply(this, args);
  } as typeof Client.prototype.query;
}
