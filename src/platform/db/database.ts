import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either the pool or an open transaction: repositories accept both. */
export type Executor = Kysely<Database>;

// int8 (bigint) and numeric come back as strings by default; counts and minor units fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface DatabaseHandle {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

export function openDatabase(
  connectionString: string,
  options: { max?: number; onError?: (error: Error) => void } = {},
): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    // Also how long a request may queue for a free connection: a burst on a busy store waits rather
    // than failing with 503 (an unreachable database fails at once with ECONNREFUSED anyway).
    connectionTimeoutMillis: 15_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection (database restarted) must not crash the process.
  pool.on('error', (error) => options.onError?.(error));
  // The pool listens for errors only on idle clients. A checked-out client whose connection drops
  // fails its query (the caller sees that) and then emits 'error'; unheard, that event would crash
  // the process. The pool discards such a client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    pool,
    async close() {
      await db.destroy();
    },
  };
}

/** Errors that mean "the database is not reachable right now" rather than "the query is wrong". */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  if (!e) return false;
  const code = e.code ?? '';
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH'].includes(code))
    return true;
  // 57P01..57P03 admin shutdown / crash shutdown / cannot connect now; class 08 connection exceptions.
  if (/^57P0[1-3]$/.test(code) || code.startsWith('08')) return true;
  const message = e.message ?? '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED/i.test(
    message,
  );
}
