import type { ChangeCounter } from '../../platform/change-counter.js';
import type { Db, Executor } from '../../platform/db/database.js';
import { TtlCache } from '../../platform/ttl-cache.js';
import { readStoreRegions } from './regions.reads.js';
import type { RegionsPort, StoreRegions } from './regions.types.js';

/**
 * How long a store's regions are kept at most. Every change made through Emporium ends the entry at
 * once, here and in the other processes (the key holds the regions' version, which the change feed
 * carries); the TTL only bounds what the feed cannot carry (a change made behind Emporium's back, a
 * process stopping between its commit and its NOTIFY). The next read after it runs in the
 * background while the old entry is served (refresh ahead), so no checkout waits for it.
 */
export const REGIONS_TTL_MS = 30_000;
const REFRESH_AHEAD_MS = 5_000;

/**
 * The pricing path's RegionsPort: each store's zones and tax regions read once (one round trip,
 * readStoreRegions) and kept in memory, keyed by the store's regions version. Concurrent misses
 * share one read. The answer is shared between callers: it must not be changed.
 */
export function createCachedRegions({
  db,
  changes,
  ttlMs = REGIONS_TTL_MS,
}: {
  db: Db;
  /** Bumped by every write of zones, rates and tax regions (the regions service). */
  changes: ChangeCounter;
  ttlMs?: number;
}): RegionsPort {
  const cache = new TtlCache<StoreRegions>({
    ttlMs,
    maxEntries: 10_000,
    refreshAheadMs: Math.min(REFRESH_AHEAD_MS, ttlMs / 2),
  });
  return {
    // A load runs on the caller's executor when it gives one (the checkout's transaction): with
    // every pool connection held by checkouts, a load waiting for one more would never start.
    regionsOf: (storeId, executor?: Executor) =>
      cache.getOrLoad(`${storeId} ${changes.version(storeId)}`, () =>
        readStoreRegions(executor ?? db, storeId),
      ),
  };
}
