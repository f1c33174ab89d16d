import type { Db, Executor } from '../../platform/db/database.js';
import { isUuid } from '../../platform/ids.js';
import * as repo from './products.repository.js';

export interface OrderableVariant {
  id: string;
  title: string;
  price: number;
  sku: string | null;
  /** Grams; null: the product's. */
  weightGrams: number | null;
}

/** What a cart shows of a product besides its price: status, stock, image. */
export interface CartProductFacts {
  status: string;
  trackInventory: boolean;
  inventory: number;
  image: string | null;
  /** Stock of each variant by id (a product with variants is sold by variant). */
  variants: Map<string, number>;
}

export interface OrderableProduct {
  id: string;
  name: string;
  status: string;
  price: number;
  sku: string | null;
  weightGrams: number;
  /** Contract §12: lines of a product that is not taxable carry no tax. */
  taxable: boolean;
  categoryIds: string[];
  variants: Map<string, OrderableVariant>;
}

const orderableIds = (productIds: string[]) => [...new Set(productIds.filter(isUuid))];
/** Ids as given in SQL (`repo.ProductIds`), or the orderable ones of a list. */
const idsOf = (productIds: repo.ProductIds) =>
  Array.isArray(productIds) ? orderableIds(productIds) : productIds;

function cartFactsOf(rows: repo.CartFactsRow[]) {
  return new Map<string, CartProductFacts>(
    rows.map((p) => [
      p.id,
      {
        status: p.status,
        trackInventory: p.track_inventory,
        inventory: p.inventory,
        image: p.image,
        variants: new Map(p.variants.map((v) => [v.id, v.inventory])),
      },
    ]),
  );
}

function orderCatalogueOf(found: repo.ProductForOrder[]) {
  return new Map<string, OrderableProduct>(
    found.map(({ variants, category_ids, weight_grams, ...p }) => [
      p.id,
      {
        ...p,
        weightGrams: weight_grams,
        categoryIds: category_ids,
        variants: new Map(
          variants.map(({ weight_grams: weightGrams, ...v }) => [v.id, { ...v, weightGrams }]),
        ),
      },
    ]),
  );
}

/** What other modules ask of the catalogue: the facts orders are priced from, which products exist. */
export function createProductLookups(db: Db) {
  /**
   * The catalogue facts an order line is priced from, for the ids given (unknown ids are simply
   * absent). Runs on the caller's executor, so checkout reads them inside its transaction.
   */
  async function lookupForOrder(tx: Executor, storeId: string, productIds: string[]) {
    return orderCatalogueOf(await repo.findForOrder(tx, storeId, orderableIds(productIds)));
  }

  return {
    /** Which of these ids name products of the store (any status). */
    async existingIds(storeId: string, ids: string[]) {
      return new Set((await lookupForOrder(db, storeId, ids)).keys());
    },

    /** Whether the store has this product (any status): wishlists accept only real products. */
    async exists(storeId: string, productId: string) {
      return isUuid(productId) && (await repo.findProduct(db, storeId, productId)) !== undefined;
    },

    lookupForOrder,

    /**
     * lookupForOrder as one query of a readTogether (the ids may be SQL: `repo.ProductIds`); its rows
     * go to `orderCatalogueFromJson`.
     */
    lookupForOrderQuery: (storeId: string, productIds: repo.ProductIds) =>
      repo.findForOrderQuery(storeId, idsOf(productIds)),
    orderCatalogueFromJson: (rows: unknown[]) => orderCatalogueOf(rows as repo.ProductForOrder[]),

    /**
     * Status, stock and primary image of the products given (unknown ids are absent); without
     * `images` (an order being placed shows none), the image is null and not read.
     */
    async cartFacts(tx: Executor, storeId: string, productIds: string[], { images = true } = {}) {
      return cartFactsOf(await repo.findCartFacts(tx, storeId, orderableIds(productIds), { images }));
    },

    /** cartFacts as one query of a readTogether (the ids may be SQL); its rows go to `cartFactsFromJson`. */
    cartFactsQuery: (storeId: string, productIds: repo.ProductIds, { images = true } = {}) =>
      repo.cartFactsQuery(storeId, idsOf(productIds), { images }),
    cartFactsFromJson: (rows: unknown[]) => cartFactsOf(rows as repo.CartFactsRow[]),
  };
}
