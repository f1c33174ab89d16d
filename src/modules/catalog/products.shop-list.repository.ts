/** The shop's product lists: each product with the price its page opens on (the cheapest variant's). */
import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import {
  filtered,
  type ProductFilter,
  type ProductRow,
  type ProductSort,
} from './products.list.repository.js';

/**
 * A product as the shop lists it: its row and the price its product page opens on. A product with
 * variants is sold by variant, so a list shows the cheapest variant in stock (the cheapest of all
 * when none is), that variant's compare-at price, and whether the variants' prices differ ("from").
 * The three are null for a product without variants (its own price is the one charged).
 */
export type ListedForShop = ProductRow & {
  from_price: number | null;
  from_compare_price: number | null;
  price_varies: boolean | null;
};

/** The price a list shows: the cheapest variant's when the product has variants. */
const listPrice = sql<number>`coalesce(cheapest.from_price, products.price)`;

/**
 * The products selected with their cheapest variant (ListedForShop), one lateral lookup per product
 * read, on the variants' (store_id, product_id) index. The window compares every variant's price
 * before `limit 1` keeps the cheapest, so the variants are read once.
 */
function withCheapestVariant<Q extends ReturnType<typeof filtered>>(query: Q) {
  return query
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('product_variants as v')
          .select([
            'v.price as from_price',
            'v.compare_price as from_compare_price',
            sql<boolean>`min(v.price) over () <> max(v.price) over ()`.as('price_varies'),
          ])
          .whereRef('v.store_id', '=', 'products.store_id')
          .whereRef('v.product_id', '=', 'products.id')
          // Sold out last (false sorts first), then the cheapest; ties by the merchant's order.
          .orderBy(sql`products.track_inventory and v.inventory <= 0`)
          .orderBy('v.price')
          .orderBy('v.position')
          .orderBy('v.id')
          // Written in the text: the statement keeps the parameters ($1 the store, …) it had.
          .limit(sql.lit(1))
          .as('cheapest'),
      (join) => join.onTrue(),
    )
    .selectAll('products')
    .select(['cheapest.from_price', 'cheapest.from_compare_price', 'cheapest.price_varies']);
}

/** Active products of these ids with their list price (any order; unknown ids are absent). */
export function findActiveProducts(db: Executor, storeId: string, ids: string[]): Promise<ListedForShop[]> {
  return withCheapestVariant(filtered(db, storeId, { status: 'active' }))
    .where('products.id', 'in', ids)
    .execute();
}

/**
 * One page of the shop's list, without the count (for callers that cache the total). The price
 * sorts order by the price shown (listPrice), so "lowest first" is what the shopper reads; newest
 * and name keep their index order and look up the cheapest variant of the page's rows only.
 */
export function listProductPage(
  db: Executor,
  storeId: string,
  filter: ProductFilter,
  page: { offset: number; limit: number },
  sort: ProductSort = 'newest',
): Promise<ListedForShop[]> {
  let rowsQuery = withCheapestVariant(filtered(db, storeId, filter));
  switch (sort) {
    case 'price_asc':
      rowsQuery = rowsQuery.orderBy(listPrice, 'asc').orderBy('products.id', 'asc');
      break;
    case 'price_desc':
      rowsQuery = rowsQuery.orderBy(listPrice, 'desc').orderBy('products.id', 'desc');
      break;
    case 'name':
      rowsQuery = rowsQuery.orderBy(sql`lower(products.name)`, 'asc').orderBy('products.id', 'asc');
      break;
    default:
      rowsQuery = rowsQuery.orderBy('products.created_at', 'desc').orderBy('products.id', 'desc');
  }
  return rowsQuery.limit(page.limit).offset(page.offset).execute();
}
