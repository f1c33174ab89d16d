import type { CompiledQuery } from 'kysely';
import type pg from 'pg';

/**
 * Hot statements sent as named (prepared) statements: each connection has PostgreSQL parse and plan
 * the text once, then only binds and executes it (its plan cached, generic once PostgreSQL finds
 * that as good). For statements run on every request of a busy route, parsing and planning were
 * about half of PostgreSQL's work. Only texts marked here are named, so their number (and the
 * memory each connection keeps for them) stays small and fixed; everything else stays unnamed.
 *
 * A marked statement must name its columns (no `table.*`): a migration that adds a column while
 * this process runs would otherwise change a cached statement's result type, which PostgreSQL refuses.
 */
const names = new Map<string, string>();
/** A bound on the marked texts (they are written in the code, so far fewer in practice). */
const MAX_NAMED = 200;

/** Marks a compiled statement's text as one to prepare; returns the same statement. */
export function prepared<R>(query: CompiledQuery<R>): CompiledQuery<R> {
  if (!names.has(query.sql) && names.size < MAX_NAMED) names.set(query.sql, `emporium_${names.size + 1}`);
  return query;
}

type Query = (...args: unknown[]) => unknown;

/** Makes `client` send the marked texts (as Kysely passes them: text, values) as named statements. */
export function nameMarkedStatements(client: pg.ClientBase): void {
  const query = client.query as Query;
  (client as unknown as { query: Query }).query = (...args: unknown[]) => {
    const [text, values] = args;
    const name = typeof text === 'string' && args.length === 2 ? names.get(text) : undefined;
    return name ? query.call(client, { name, text, values }) : query.apply(client, args);
  };
}
