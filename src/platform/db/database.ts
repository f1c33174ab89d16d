import { Kysely, PostgresDialect, type PostgresPool, type Transaction } from 'kysely';
import pg from 'pg';
import { sendMarkedAsNamed } from './prepared.js';
import type { Database } from './schema.js';
import { parseTimestampsFast } from './timestamps.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either the pool or an open transaction: repositories accept both. */
export type Executor = Kysely<Database>;

// int8 (bigint) and numeric come back as strings by default; counts and minor units fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
// timestamptz in a UTC session without pg's regular expressions (timestamps.ts); other forms as before.
parseTimestampsFast();

export interface DatabaseHandle {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  max?: number;
  onError?: (error: Error) => void;
  /**
   * PostgreSQL's `statement_timeout` for every statement of this pool (0 or absent: none). For
   * request work; bulk jobs (seed) and migrations run without one.
   */
  statementTimeoutMs?: number;
  /**
   * Stall detection (absent: none). A query or a wait for a connection without an answer for this
   * long makes the handle check, on a connection of its own, that the server still answers. If it
   * does not (a frozen host, a stopped process, a network that drops packets), the stalled query's
   * connection is cut (the query fails as "connection terminated") and, until a check succeeds again
   * (every second), every new query fails at once with DatabaseUnavailableError. A server that
   * answers the check leaves slow queries alone: `statement_timeout` bounds those.
   */
  stallCheckMs?: number;
  /** Called when the server stops answering (false) and when it answers again (true). */
  onAvailability?: (available: boolean) => void;
}

/** The server did not answer the handle's check: nothing is sent until it does. */
export class DatabaseUnavailableError extends Error {
  readonly code = 'EDBUNAVAILABLE';
}

/** Longest wait of a check (connect and `SELECT 1` on a fresh connection) before it counts as silent. */
const CHECK_TIMEOUT_MS = 1500;
/** A successful check vouches for the server this long; stalled queries share it. */
const CHECK_REUSE_MS = 1000;
/** While the server is silent, a check every this often notices it is back. */
const RECHECK_MS = 1000;

interface Socketed {
  connection?: { stream?: { destroy(): void } };
}

/** Cuts a client's socket at once: `end()` would wait for a goodbye a silent server never sends. */
function cutConnection(client: pg.ClientBase): void {
  (client as unknown as Socketed).connection?.stream?.destroy();
}

/**
 * Whether the server answers, on a fresh connection. A server that answers with an error (too many
 * connections, starting up) is answering: its queries are slow or refused, not lost.
 */
async function serverAnswers(connectionString: string): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: CHECK_TIMEOUT_MS });
  client.on('error', () => {});
  let timer: NodeJS.Timeout | undefined;
  const silent = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  const attempt = client
    .connect()
    .then(() => client.query('SELECT 1'))
    .then(
      () => true,
      (error: unknown) => error instanceof pg.DatabaseError,
    );
  const answered = await Promise.race([attempt, silent]);
  clearTimeout(timer);
  if (answered) await client.end().catch(() => {});
  else cutConnection(client);
  return answered;
}

function createAvailability(connectionString: () => string, onChange?: (available: boolean) => void) {
  let available = true;
  let checking: Promise<boolean> | undefined;
  let lastGoodCheck = 0;
  let recheck: NodeJS.Timeout | undefined;
  let closed = false;

  const scheduleRecheck = () => {
    if (closed || recheck) return;
    recheck = setTimeout(() => {
      recheck = undefined;
      void check().then((ok) => {
        if (!ok) scheduleRecheck();
      });
    }, RECHECK_MS);
    recheck.unref();
  };

  const check = (): Promise<boolean> => {
    if (available && Date.now() - lastGoodCheck < CHECK_REUSE_MS) return Promise.resolve(true);
    checking ??= serverAnswers(connectionString()).then((ok) => {
      checking = undefined;
      if (ok) lastGoodCheck = Date.now();
      if (ok !== available && !closed) {
        available = ok;
        onChange?.(ok);
      }
      if (!ok) scheduleRecheck();
      return ok;
    });
    return checking;
  };

  return {
    get available() {
      return available;
    },
    check,
    close() {
      closed = true;
      clearTimeout(recheck);
    },
  };
}

/**
 * A pg pool behind Kysely. `connectionString` may be a function: each new connection asks it, so a
 * database that moved (the embedded cluster restarted on another port) is followed.
 */
export function openDatabase(
  connectionString: string | (() => string),
  options: DatabaseOptions = {},
): DatabaseHandle {
  const currentUrl = typeof connectionString === 'string' ? () => connectionString : connectionString;
  const Client = class extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionString: currentUrl() });
    }
  };
  sendMarkedAsNamed(Client);
  const pool = new pg.Pool({
    Client,
    max: options.max ?? 10,
    // Also how long a request may queue for a free connection: a burst on a busy store waits rather
    // than failing with 503 (an unreachable database fails at once with ECONNREFUSED anyway; a
    // silent one is caught by stall detection when it is on).
    connectionTimeoutMillis: 15_000,
    // Each connection is a PostgreSQL backend (2–6 MB of its own): those a burst opened (the start,
    // where every job loop claims at once, or a busy minute) close after 3 idle seconds, but two stay
    // open, so a request after a quiet spell does not wait for a new connection.
    min: Math.min(2, options.max ?? 10),
    idleTimeoutMillis: 3_000,
    // A peer that vanished without closing (host down, network cut) is noticed on idle connections.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
  });
  // An idle client losing its connection (database restarted) must not crash the process.
  pool.on('error', (error) => options.onError?.(error));
  // The pool listens for errors only on idle clients. A checked-out client whose connection drops
  // fails its query (the caller sees that) and then emits 'error'; unheard, that event would crash
  // the process. The pool discards such a client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));

  const stallMs = options.stallCheckMs;
  const availability = createAvailability(currentUrl, options.onAvailability);
  /** Runs `onStalled` if `work` is still pending after `stallMs` and the server does not answer. */
  const watchStall = (work: Promise<unknown>, onStalled: () => void) => {
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      timer = setTimeout(() => {
        void availability.check().then((ok) => {
          if (done) return;
          if (ok) arm();
          else onStalled();
        });
      }, stallMs);
      timer.unref();
    };
    arm();
    const finish = () => {
      done = true;
      clearTimeout(timer);
    };
    work.then(finish, finish);
  };

  let guarded: PostgresPool = pool;
  if (stallMs) {
    pool.on('connect', (client) => {
      const query = client.query as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const result = query.apply(client, args);
        if (result instanceof Promise) watchStall(result, () => cutConnection(client));
        return result;
      };
    });
    guarded = {
      connect: () => {
        if (!availability.available) {
          return Promise.reject(new DatabaseUnavailableError('the database is not answering'));
        }
        const acquiring = pool.connect();
        return new Promise((resolve, reject) => {
          let settled = false;
          watchStall(acquiring, () => {
            settled = true;
            reject(new DatabaseUnavailableError('the database is not answering'));
          });
          acquiring.then(
            (client) => {
              if (settled) client.release(new Error('abandoned: the database was not answering'));
              else {
                settled = true;
                resolve(client);
              }
            },
            (error: unknown) => {
              if (!settled) {
                settled = true;
                reject(error);
              }
            },
          );
        });
      },
      end: () => pool.end(),
    };
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: guarded }) });
  return {
    db,
    pool,
    async close() {
      availability.close();
      await db.destroy();
    },
  };
}

/** Errors that mean "the database is not reachable right now" rather than "the query is wrong". */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const e = error as { code?: string; message?: string } | undefined;
  if (!e) return false;
  const code = e.code ?? '';
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH'].includes(code))
    return true;
  // 57P01..57P03 admin shutdown / crash shutdown / cannot connect now; class 08 connection exceptions;
  // 57014 a statement cancelled, by statement_timeout (or an operator): the database is too busy or
  // the request too heavy for now. Answered 503 with Retry-After and logged as an error (docs/decisions.md).
  if (/^57P0[1-3]$/.test(code) || code === '57014' || code.startsWith('08')) return true;
  const message = e.message ?? '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED/i.test(
    message,
  );
}
