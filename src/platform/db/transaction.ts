import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'kysely';
import type { Db, Tx } from './database.js';

/** SQLSTATEs after which the whole transaction may simply run again: deadlock, serialization failure. */
const RETRYABLE = new Set(['40P01', '40001']);
/** Attempts in all; a conflict still there after these answers 503 (toAppError) and the client retries. */
export const TRANSACTION_ATTEMPTS = 4;

/**
 * Marks the asynchronous work of inTransaction and inLongTransaction: whatever runs inside them,
 * however deep, sees `insideTransaction()` true. Outbound calls that must never run while a
 * transaction (and so possibly a row lock) is held check it and refuse (docs/decisions.md, "No
 * network call inside a transaction").
 */
const openTransactions = new AsyncLocalStorage<TransactionState>();

interface TransactionState {
  /** Run once the transaction has committed; dropped with an attempt that rolled back. */
  afterCommit: Array<() => void>;
  /** Run when the attempt rolled back (or its commit failed). */
  afterRollback: Array<() => void>;
}

/**
 * Work that must commit with the first transaction of a unit of work (a request): the request's
 * audit row (platform/audit-trail.ts). `board` runs on each transaction of the unit right after its
 * BEGIN, before the work (what it writes there is outside the work's row locks: a hot row's lock is
 * not held for it); `ride` runs just before the commit, after the work succeeded. What either writes
 * commits or rolls back with the work.
 */
export interface CommitRider {
  board?(tx: Tx): Promise<void>;
  ride(tx: Tx): Promise<void>;
  /** A transaction of the unit of work was a dry run (inRolledBackTransaction): it changed nothing. */
  dryRun?(): void;
}
const commitRiders = new AsyncLocalStorage<CommitRider>();

/** Runs `fn` so that every transaction it opens (inTransaction, inLongTransaction) carries `rider`. */
export function runWithCommitRider<T>(rider: CommitRider, fn: () => T): T {
  return commitRiders.run(rider, fn);
}

/** The rider of the unit of work (if any) boards, the transaction's work runs, the rider rides before the commit. */
function withRider<T>(work: (tx: Tx) => Promise<T>): (tx: Tx) => Promise<T> {
  const rider = commitRiders.getStore();
  if (!rider) return work;
  return async (tx) => {
    await rider.board?.(tx);
    const result = await work(tx);
    await rider.ride(tx);
    return result;
  };
}

export function insideTransaction(): boolean {
  return openTransactions.getStore() !== undefined;
}

/**
 * Runs `effect` once the transaction this code runs in (inTransaction or inLongTransaction) has
 * committed, or now outside one. For in-memory effects that others must only see with the data:
 * an attempt that rolls back (and may run again) leaves none behind. Effects are synchronous and
 * must not throw (the work they follow has committed).
 */
export function afterCommit(effect: () => void): void {
  const state = openTransactions.getStore();
  if (state) state.afterCommit.push(effect);
  else effect();
}

/**
 * Runs `effect` if the transaction this code runs in rolls back (or fails to commit); dropped once it
 * commits. Outside a transaction, never. Synchronous, must not throw.
 */
export function afterRollback(effect: () => void): void {
  openTransactions.getStore()?.afterRollback.push(effect);
}

/** Runs `work` marked as one transaction attempt, then its after-commit (or after-rollback) effects. */
async function runAttempt<T>(run: () => Promise<T>): Promise<T> {
  const state: TransactionState = { afterCommit: [], afterRollback: [] };
  let result: T;
  try {
    result = await openTransactions.run(state, run);
  } catch (error) {
    for (const effect of state.afterRollback) effect();
    throw error;
  }
  for (const effect of state.afterCommit) effect();
  return result;
}

/** Throws when called inside a transaction: for network calls (payment providers). */
export function assertOutsideTransaction(what: string): void {
  if (insideTransaction()) throw new Error(`${what} must not run while a database transaction is open`);
}

export function isRetryableConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && RETRYABLE.has(code);
}

/** 10, 20, 40 ms (± 50 %): the transactions that met stop meeting again in lockstep. */
const backoffMs = (attempt: number) => 10 * 2 ** (attempt - 1) * (0.5 + Math.random());

/**
 * Runs `work` in one transaction. Functions that take an Executor can run on the pool or bound to
 * the transaction passed here, so one service call can span several repositories atomically.
 *
 * PostgreSQL ends one side of a deadlock (40P01) or a serialization failure (40001) with an error
 * and rolls its transaction back; then the whole of `work` runs again, up to TRANSACTION_ATTEMPTS
 * times. So `work` must have no effect outside the transaction: no network calls, no files, no
 * in-memory state that a rolled-back attempt would leave behind (NOTIFY is fine: PostgreSQL
 * delivers it at commit only; in-memory effects go through afterCommit). Deadlocks should not happen at all (docs/decisions.md, "Lock
 * order"); this is the safety net for the ones no rule foresaw.
 */
export async function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runAttempt(() => db.transaction().execute(withRider(work)));
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isRetryableConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
    }
  }
}

/** Carries a dry run's result out of the transaction it rolls back. */
class RollBack<T> {
  constructor(readonly result: T) {}
}

/**
 * Runs `work` as inTransaction does (retries included), then rolls the transaction back even when
 * `work` succeeded, and answers its result: a preview ("dry run") of a change made by exactly the
 * code that makes it, which leaves nothing behind: no row, no outbox event, no NOTIFY (delivered at
 * commit only), no after-commit effect (dropped with the attempt). Errors of `work` are thrown as usual.
 */
export async function inRolledBackTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    await inTransaction(db, async (tx) => {
      throw new RollBack(await work(tx));
    });
  } catch (outcome) {
    if (outcome instanceof RollBack) {
      commitRiders.getStore()?.dryRun?.();
      return outcome.result as T;
    }
    throw outcome;
  }
  throw new Error('inRolledBackTransaction: the transaction was not rolled back');
}

/**
 * Runs `work` in one transaction without the pool's statement timeout (DATABASE_STATEMENT_TIMEOUT_MS),
 * for background jobs that may legitimately take long (pruning a large log), never for requests.
 */
export function inLongTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return runAttempt(() =>
    db.transaction().execute(async (tx) => {
      await sql`SET LOCAL statement_timeout = 0`.execute(tx);
      return withRider(work)(tx);
    }),
  );
}
