import type { ChangeCounter } from '../../platform/change-counter.js';
import type { Db } from '../../platform/db/database.js';
import { currencyDecimals } from '../../platform/money.js';
import type { RegionsPort } from './regions.types.js';
import { createTaxRegionsService } from './tax-regions.service.js';
import { createZonesService } from './zones.service.js';

/**
 * Shipping zones, their rates and tax regions (contract §12): the merchant API's operations, and
 * `regionsOf`, what the pricing path reads (the cached port, which every write here invalidates).
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
  /** Bumped by every write; `port` keys its cache on it (see createCachedRegions). */
  changes: ChangeCounter;
  port: RegionsPort;
}) {
  const deps = {
    db,
    changes,
    decimalsOf: async (storeId: string) => currencyDecimals((await stores.getStore(storeId)).currency),
  };
  return {
    ...createZonesService(deps),
    ...createTaxRegionsService(deps),
    regionsOf: (storeId: string) => port.regionsOf(storeId),
  };
}

export type RegionsService = ReturnType<typeof createRegionsService>;
