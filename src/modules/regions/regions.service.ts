import type { ChangeCounter } from '../../platform/change-counter.js';
import type { Db, Executor } from '../../platform/db/database.js';
import { currencyDecimals } from '../../platform/money.js';
import { createCachedRegions } from './regions.cache.js';
import type { RegionsPort } from './regions.types.js';
import { createTaxRegionsService } from './tax-regions.service.js';
import { createZonesService } from './zones.service.js';

/**
 * Shipping zones, their rates and tax regions (contract §12): the merchant API's operations, and
 * `regionsOf`, what the pricing path reads: the cached port (createCachedRegions over `changes`
 * unless another is given), which every write here invalidates.
 */
export function createRegionsService({
  db,
  stores,
  changes,
  port,
}: {
  db: Db;
  /** Store settings (the currency's decimals). */
  stores: { getStore(storeId: string): Promise<{ currency: string }> };
  /** Bumped by every write; the cached port keys on it (see createCachedRegions). */
  changes: ChangeCounter;
  port?: RegionsPort;
}) {
  const regions = port ?? createCachedRegions({ db, changes });
  const deps = {
    db,
    changes,
    decimalsOf: async (storeId: string) => currencyDecimals((await stores.getStore(storeId)).currency),
  };
  return {
    ...createZonesService(deps),
    ...createTaxRegionsService(deps),
    regionsOf: (storeId: string, executor?: Executor) => regions.regionsOf(storeId, executor),
  };
}

export type RegionsService = ReturnType<typeof createRegionsService>;
