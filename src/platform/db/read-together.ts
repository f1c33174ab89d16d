import type { Executor } from './database.js';
import { prepared } from './prepared.js';
import { asFragment, compiled, joinSql, rawSql, type SqlText, sqlText } from './sql-text.js';

/** One query of a readTogether: its rows come back as JSON, in `orderBy` order when given. */
export interface TogetherPart {
  query: SqlText;
  /** An ORDER BY list over the query's output columns (json_agg keeps no order otherwise). */
  orderBy?: string;
}

/**
 * Several queries sent as one statement, each a CTE whose rows come back as one JSON array
 * (`WITH r0 AS (…), r1 AS (…) SELECT (SELECT json_agg(r0) FROM r0), …`). One round trip instead of
 * one per query (parts given as undefined are left out, and come back undefined): inside a transaction, round trips are what a checkout pays for (docs/performance.md).
 *
 * Every CTE runs in the statement's one snapshot, so a part must not need another's effects (a read
 * does not see the row a sibling upsert writes). A data-modifying part (an upsert with RETURNING)
 * runs exactly once, as any data-modifying CTE. The rows are JSON: timestamps arrive as strings, and
 * the module that owns each query turns them back into its row type. The SQL of a part must hold no
 * `$n` text other than its parameters (true of Kysely's compiled queries).
 */
export async function readTogether<K extends string>(
  db: Executor,
  parts: Record<K, TogetherPart | undefined>,
): Promise<Record<K, unknown[] | undefined>> {
  const keys = (Object.keys(parts) as K[]).filter((key) => parts[key] !== undefined);
  const ctes: SqlText[] = [];
  const columns: string[] = [];
  keys.forEach((key, index) => {
    const { query, orderBy } = parts[key] as TogetherPart;
    ctes.push(sqlText`${rawSql(`r${index}`)} AS (${asFragment(query)})`);
    const order = orderBy ? ` ORDER BY ${orderBy}` : '';
    columns.push(`(SELECT COALESCE(json_agg(r${index}${order}), '[]'::json) FROM r${index}) AS r${index}`);
  });
  // Named (prepared): a readTogether's text is one per call site and set of parts, and its result
  // columns are its parts' JSON arrays whatever the tables' columns.
  const result = await db.executeQuery<Record<string, unknown[]>>(
    prepared(compiled(sqlText`WITH ${joinSql(ctes)} SELECT ${rawSql(columns.join(', '))}`)),
  );
  const row = result.rows[0] ?? {};
  return Object.fromEntries(keys.map((key, index) => [key, row[`r${index}`] ?? []])) as Record<
    K,
    unknown[] | undefined
  >;
}

/** A JSON timestamp (or null) of a readTogether row back as the Date a query would have given. */
export function jsonDate(value: unknown): Date {
  return new Date(value as string);
}
export function jsonDateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : new Date(value as string);
}
