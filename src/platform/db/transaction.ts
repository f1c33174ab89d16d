import type { Db, Tx } from './database.js';

/**
 * Runs `work` in one transaction. Functions that take an Executor can run on the pool or bound to
 * the transaction passed here, so one service call can span several repositories atomically.
 */
export function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction().execute(work);
}
