import type { ChangeCounter } from '../../platform/change-counter.js';
import type { Db } from '../../platform/db/database.js';
import type { InventoryService } from '../inventory/index.js';
import type { StoresService } from '../stores/index.js';
import { createProductLookups } from './products.lookups.js';
import type { ImageRehoster } from './products.media.js';
import { createMerchantProducts } from './products.merchant.js';
import { createStorefrontProducts } from './products.storefront.js';

export type { CartProductFacts, OrderableProduct, OrderableVariant } from './products.lookups.js';
export type { ImageRehoster } from './products.media.js';
export type { ProductUpdate } from './products.merchant.js';

export interface ProductsDeps {
  db: Db;
  stores: StoresService;
  inventory: InventoryService;
  media: ImageRehoster;
  /** How long a storefront list total is reused (see storefrontPage); 5 s by default, 0 disables. */
  storefrontTotalTtlMs?: number;
  /** Bumped per store when its products change (the shop's page cache keys on it). */
  changes?: ChangeCounter;
}

/**
 * The products service: the merchant's CRUD (products.merchant.ts, with the variant sync of
 * products.variants.ts and the image re-hosting of products.media.ts), the storefront's reads
 * (products.storefront.ts) and what other modules look up (products.lookups.ts).
 */
export function createProductsService({
  db,
  stores,
  inventory,
  media,
  storefrontTotalTtlMs = 5_000,
  changes,
}: ProductsDeps) {
  return {
    ...createMerchantProducts({ db, stores, inventory, media, changes }),
    ...createStorefrontProducts({ db, storefrontTotalTtlMs, changes }),
    ...createProductLookups(db),
  };
}

export type ProductsService = ReturnType<typeof createProductsService>;
