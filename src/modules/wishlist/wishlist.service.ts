import type { Db } from '../../platform/db/database.js';
import { invalidRequest } from '../../platform/http/errors.js';
import { isUuid } from '../../platform/ids.js';
import type { ProductsService } from '../catalog/index.js';
import type { StoresService } from '../stores/index.js';
import * as repo from './wishlist.repository.js';

/** A customer's wishlist of the store's products. */
export function createWishlistService(deps: { db: Db; products: ProductsService; stores: StoresService }) {
  const { db } = deps;

  async function requireProduct(storeId: string, productId: string) {
    if (!(await deps.products.exists(storeId, productId)))
      throw invalidRequest('productId is not a product of this store', [
        { field: 'productId', message: 'unknown product' },
      ]);
  }

  return {
    /** The wishlisted products that are on sale now, most recently added first. */
    async list(storeId: string, customerId: string) {
      const ids = (await repo.productIdsOf(db, storeId, customerId)).map((r) => r.product_id);
      return deps.products.storefrontSummaries(await deps.stores.getStore(storeId), ids);
    },

    async add(storeId: string, customerId: string, productId: string) {
      await requireProduct(storeId, productId);
      const added = await repo.add(db, storeId, customerId, productId);
      return { productId, wishlisted: true, added };
    },

    async toggle(storeId: string, customerId: string, productId: string) {
      if (await repo.remove(db, storeId, customerId, productId)) return { productId, wishlisted: false };
      await requireProduct(storeId, productId);
      await repo.add(db, storeId, customerId, productId);
      return { productId, wishlisted: true };
    },

    async check(storeId: string, customerId: string, productId: string) {
      const wishlisted = isUuid(productId) && (await repo.has(db, storeId, customerId, productId));
      return { productId, wishlisted };
    },

    async remove(storeId: string, customerId: string, productId: string) {
      if (isUuid(productId)) await repo.remove(db, storeId, customerId, productId);
    },
  };
}

export type WishlistService = ReturnType<typeof createWishlistService>;
