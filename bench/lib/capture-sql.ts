import { type CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { Database } from '../../src/platform/db/schema.js';

/**
 * A Kysely instance on `pool` that records every query it runs, compiled: a scenario runs our own
 * repository or service code on it once, and its baseline then sends exactly that SQL. Kysely logs
 * a query when it has finished, so queries run in parallel are recorded in any order.
 */
export function capturingDb(pool: pg.Pool): { db: Kysely<Database>; queries: CompiledQuery[] } {
  const queries: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      queries.push(event.query);
    },
  });
  return { db, queries };
}
