import { sql } from 'kysely';
import type { Db, Tx } from './database.js';

/**
 * Runs `work` in one transaction. Functions that take an Executor can run on the pool or bound to
 * the transaction passed here, so one service call can span several repositories atomically.
 */
export function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction().execute(work);
}

/**
 * Runs `work` in one transaction without the pool's statement timeout (DATABASE_STATEMENT_TIMEOUT_MS),
 * for background jobs that may legitimately take long (pruning a large log), never for requests.
 */
export function inLongTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (tx) => {
    await sql`SET LOCAL statement_timeout = 0`.execute(tx);
    return work(tx);
  });
}
