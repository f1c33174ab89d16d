import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { ChangeCounter } from './change-counter.js';
import { createWakeup } from './wakeup.js';

/**
 * The NOTIFY channel of committed changes (payload: `<process token> <counter name> <store id>,…`):
 * one channel, and so one LISTEN connection per process, carries every counter of the feed.
 */
export const CATALOG_CHANNEL = 'emporium_catalog';
/**
 * Store ids per NOTIFY: a payload must stay under PostgreSQL's 8,000 bytes (36 + 1 bytes each,
 * beside the token and a short counter name).
 */
const IDS_PER_NOTIFY = 200;
/**
 * Bumps are gathered this long before a NOTIFY goes: a busy checkout bumps its store with every
 * order, and one NOTIFY per order would cost a statement each.
 */
const GATHER_MS = 20;
/**
 * And a NOTIFY goes at most this often: under a steady stream of orders a NOTIFY every GATHER_MS was
 * still half a statement per order at 100 orders/s (each its own transaction on the pool, taking the
 * cluster's notify lock at commit). A lone change is still announced GATHER_MS after its commit; the
 * changes of a busy store wait at most this long, well within the caches' 5 s.
 */
const MIN_INTERVAL_MS = 100;
/** How often a lost LISTEN connection is opened again. */
const RELISTEN_MS = 2_000;

/**
 * Carries ChangeCounters' committed bumps between the API processes of one database, through
 * PostgreSQL's LISTEN/NOTIFY: every process's caches keyed by a counter then drop a store's
 * entries within milliseconds of a change committed by any of them. Each counter has a name (the
 * catalogue's, the regions'), sent with its store ids, so that a sale, which bumps the catalogue,
 * leaves the caches keyed by the regions' counter alone; all of them share the one connection.
 *
 * The NOTIFY is sent after the commit, from the pool, never inside the changing transaction: a
 * notifying commit takes a cluster-wide lock, which would serialise every checkout's commit.
 * Bumps are coalesced: the stores changed within GATHER_MS, or while a NOTIFY is in flight, go
 * together in the next, so the feed costs at most ten small statements a second, whatever
 * the rate of changes. What the feed cannot carry is bounded by the caches' TTLs: a change made
 * outside Emporium, or a process that stops between its commit and its NOTIFY. While LISTEN is
 * down nothing is known of other processes; when it runs again every version moves (`reset`).
 */
export function createChangeFeed(options: {
  pool: pg.Pool;
  /** The counters exchanged, by name (a short word without spaces, the same in every process). */
  counters: Record<string, ChangeCounter>;
  logger: Logger;
  channel?: string;
}) {
  const { pool, counters, logger } = options;
  const channel = options.channel ?? CATALOG_CHANNEL;
  const token = randomUUID();
  /** Store ids to announce, per counter name. */
  const pending = new Map<string, Set<string>>();
  let sending: Promise<void> | undefined;
  let closed = false;
  let lastSent = Number.NEGATIVE_INFINITY;

  async function sendPending(): Promise<void> {
    const wait = Math.max(GATHER_MS, lastSent + MIN_INTERVAL_MS - Date.now());
    await new Promise((resolve) => setTimeout(resolve, wait));
    lastSent = Date.now();
    // The stores pending now, in NOTIFYs of IDS_PER_NOTIFY; those announced while these are in
    // flight wait for the next round (flush), MIN_INTERVAL_MS on.
    const all = [...pending].map(([name, ids]) => [name, [...ids]] as const);
    pending.clear();
    for (const [name, stores] of all) {
      for (let start = 0; start < stores.length && !closed; start += IDS_PER_NOTIFY) {
        const ids = stores.slice(start, start + IDS_PER_NOTIFY);
        try {
          await pool.query('SELECT pg_notify($1, $2)', [channel, `${token} ${name} ${ids.join(',')}`]);
        } catch (error) {
          // The other processes' caches end these entries by their TTL.
          logger.warn({ err: error }, 'could not announce changes to other processes');
        }
      }
    }
  }

  function flush(): Promise<void> {
    return sendPending().finally(() => {
      // Stores announced after the loop's last check go in a new round.
      sending = pending.size > 0 && !closed ? flush() : undefined;
    });
  }

  function announce(name: string, storeId: string): void {
    if (closed) return;
    const ids = pending.get(name) ?? new Set<string>();
    ids.add(storeId);
    pending.set(name, ids);
    sending ??= flush();
  }

  const wakeup = createWakeup({
    pool,
    channel,
    name: 'change feed',
    logger,
    onNotification(payload) {
      const [from, name, ids] = payload.split(' ');
      const counter = name === undefined ? undefined : counters[name];
      if (from === token || !counter || !ids) return;
      for (const id of ids.split(',')) counter.applyRemote(id);
    },
    onListening: () => {
      for (const counter of Object.values(counters)) counter.reset();
    },
  });

  const announcers = Object.entries(counters).map(([name, counter]) => {
    const announceOne = (storeId: string) => announce(name, storeId);
    counter.onCommittedBump = announceOne;
    return [counter, announceOne] as const;
  });
  const relisten = setInterval(() => {
    if (!wakeup.listening) void wakeup.listen();
  }, RELISTEN_MS);
  relisten.unref();

  return {
    /** Starts listening (failures are logged, and retried every few seconds). */
    start: () => wakeup.listen(),

    /** Whether the other processes' changes are being received. */
    get listening(): boolean {
      return wakeup.listening;
    },

    /** Stops announcing and listening; waits for a NOTIFY in flight. */
    async close(): Promise<void> {
      closed = true;
      clearInterval(relisten);
      for (const [counter, announceOne] of announcers)
        if (counter.onCommittedBump === announceOne) counter.onCommittedBump = undefined;
      await sending;
      await wakeup.close();
    },
  };
}

export type ChangeFeed = ReturnType<typeof createChangeFeed>;
