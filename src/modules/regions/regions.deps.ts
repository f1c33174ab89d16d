import type { ChangeCounter } from '../../platform/change-counter.js';
import type { Db } from '../../platform/db/database.js';

/** What the zones' and tax regions' services share. */
export interface RegionsDeps {
  db: Db;
  /**
   * The regions' version per store: every write bumps it, and the cached RegionsPort (regions.cache.ts)
   * keys on it, in this process and, through the change feed, in the others.
   */
  changes: ChangeCounter;
  /** The decimals of the store's currency (amounts in and out). */
  decimalsOf(storeId: string): Promise<number>;
}
