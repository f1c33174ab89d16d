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
 * The cheapest variant of every product of the store that has variants, in one pass over the
 * store's variants (the same choice as withCheapestVariant's, DISTINCT ON instead of `limit 1`):
 * for the price sorts, which need every matching product's list price before they can sort. A
 * lookup per product row would probe the variants' index once per product of the store (10,000
 * probes for a page of 24), whether it has variants or not.
 */
function cheapestVariants(db: Executor, storeId: string) {
  return (
    db
      .selectFrom('product_variants as v')
      .innerJoin('products as p', (join) =>
        join.onRef('p.store_id', '=', 'v.store_id').onRef('p.id', '=', 'v.product_id'),
      )
      .distinctOn('v.product_id')
      .select([
        'v.product_id',
        'v.price as from_price',
        'v.compare_price as from_compare_price',
        sql<boolean>`min(v.price) over (partition by v.product_id) <> max(v.price) over (partition by v.product_id)`.as(
          'price_varies',
        ),
      ])
      .where('v.store_id', '=', storeId)
      .orderBy('v.product_id')
      // Sold out last (false sorts first), then the cheapest; ties by the merchant's order.
      .orderBy(sql`p.track_inventory and v.inventory <= 0`)
      .orderBy('v.price')
      .orderBy('v.position')
      .orderBy('v.id')
  );
}

/**
 * One page of the shop's list, without the count (for callers that cache the total). The price
 * sorts order by the price shown (listPrice), so "lowest first" is what the shopper reads: they join
 * every product's cheapest variant (cheapestVariants) and sort. Newest and name keep their index
 * order: the page's rows are picked first, and only those look up their cheapest variant (the rows
 * skipped before the page's offset are never joined).
 */
export function listProductPage(
  db: Executor,
  storeId: string,
  filter: ProductFilter,
  page: { offset: number; limit: number },
  sort: ProductSort = 'newest',
): Promise<ListedForShop[]> {
  if (sort === 'price_asc' || sort === 'price_desc') {
    const direction = sort === 'price_asc' ? 'asc' : 'desc';
    return filtered(db, storeId, filter)
      .leftJoin(cheapestVariants(db, storeId).as('cheapest'), 'cheapest.product_id', 'products.id')
      .selectAll('products')
      .select(['cheapest.from_price', 'cheapest.from_compare_price', 'cheapest.price_varies'])
      .orderBy(listPrice, direction)
      .orderBy('products.id', direction)
      .limit(page.limit)
      .offset(page.offset)
      .execute();
  }
  let pageQuery = filtered(db, storeId, filter).selectAll('products');
  pageQuery =
    sort === 'name'
      ? pageQuery.orderBy(sql`lower(products.name)`, 'asc').orderBy('products.id', 'asc')
      : pageQuery.orderBy('products.created_at', 'desc').orderBy('products.id', 'desc');
  let rowsQuery = withCheapestVariant(
    db.selectFrom(pageQuery.limit(page.limit).offset(page.offset).as('products')),
  );
  rowsQuery =
    sort === 'name'
      ? rowsQuery.orderBy(sql`lower(products.name)`, 'asc').orderBy('products.id', 'asc')
      : rowsQuery.orderBy('products.created_at', 'desc').orderBy('products.id', 'desc');
  return rowsQuery.execute();
}
