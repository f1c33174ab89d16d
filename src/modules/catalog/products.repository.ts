import { type CompiledQuery, type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';
import { type CreatedKey, createdMicros, olderThan } from '../../platform/db/keyset.js';
import { containsPattern } from '../../platform/db/like.js';
import type {
  ProductMediaTable,
  ProductStatus,
  ProductsTable,
  ProductVariantsTable,
} from './catalog.tables.js';

export type ProductRow = Selectable<ProductsTable>;
export type VariantRow = Selectable<ProductVariantsTable>;
export type MediaRow = Selectable<ProductMediaTable>;

export interface ProductDetails {
  variants: VariantRow[];
  media: MediaRow[];
  categoryIds: string[];
}

export interface ProductFilter {
  status?: ProductStatus;
  categoryId?: string;
  categorySlug?: string;
  q?: string;
}

export type ProductSort = 'newest' | 'price_asc' | 'price_desc' | 'name';

function filtered(db: Executor, storeId: string, filter: ProductFilter) {
  let query = db.selectFrom('products').where('products.store_id', '=', storeId);
  if (filter.status) query = query.where('products.status', '=', filter.status);
  if (filter.categoryId) {
    const categoryId = filter.categoryId;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('product_categories as pc')
          .select(sql`1`.as('one'))
          .whereRef('pc.product_id', '=', 'products.id')
          .where('pc.category_id', '=', categoryId),
      ),
    );
  }
  if (filter.categorySlug) {
    const slug = filter.categorySlug;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('product_categories as pc')
          .innerJoin('categories as c', 'c.id', 'pc.category_id')
          .select(sql`1`.as('one'))
          .whereRef('pc.product_id', '=', 'products.id')
          .where('c.store_id', '=', storeId)
          .where('c.slug', '=', slug),
      ),
    );
  }
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    query = query.where((eb) =>
      eb.or([eb('products.name', 'ilike', pattern), eb('products.sku', 'ilike', pattern)]),
    );
  }
  return query;
}

/** Filters the per-status counters answer exactly (see migration 2026_11_26_0027). */
function isCounted(filter: ProductFilter) {
  return !filter.categoryId && !filter.categorySlug && !filter.q;
}

/** The exact number of the store's products (of one status): the sum of the counters kept by triggers. */
export async function countedProducts(db: Executor, storeId: string, status?: ProductStatus) {
  let query = db
    .selectFrom('product_counts')
    .select(sql<string>`COALESCE(sum(count), 0)::text`.as('total'))
    .where('store_id', '=', storeId);
  if (status) query = query.where('status', '=', status);
  return Number((await query.executeTakeFirstOrThrow()).total);
}

/**
 * The merchant's list, newest first. A page after a cursor's key is one range of the
 * (store_id, [status,] created_at, id) index whatever the depth. A page by number over a counted
 * filter (none, or a status) takes its exact total from the counters and starts from the nearer end
 * of the index, its first row found by an index-only scan (no table row is read for the rows
 * skipped): the last page costs what the first does, a middle one at most half the index. Other
 * filters: OFFSET and an exact count. One row more than the page is read (where the total cannot
 * tell) to know whether another follows; each row carries its exact created_at for the next cursor.
 */
export async function listProducts(
  db: Executor,
  storeId: string,
  filter: ProductFilter,
  page: { offset: number; limit: number; after?: CreatedKey },
): Promise<{ rows: ListedProduct[]; total: number; more: boolean }> {
  if (page.after) {
    const [rows, total] = await Promise.all([
      newestFirst(db, storeId, filter)
        .where(olderThan('products', page.after))
        .limit(page.limit + 1)
        .execute(),
      isCounted(filter) ? countedProducts(db, storeId, filter.status) : countProducts(db, storeId, filter),
    ]);
    return { rows: rows.slice(0, page.limit), total, more: rows.length > page.limit };
  }
  if (!isCounted(filter)) {
    const [rows, total] = await Promise.all([
      newestFirst(db, storeId, filter)
        .offset(page.offset)
        .limit(page.limit + 1)
        .execute(),
      countProducts(db, storeId, filter),
    ]);
    return { rows: rows.slice(0, page.limit), total, more: rows.length > page.limit };
  }
  if (page.offset === 0) {
    const [rows, total] = await Promise.all([
      newestFirst(db, storeId, filter)
        .limit(page.limit + 1)
        .execute(),
      countedProducts(db, storeId, filter.status),
    ]);
    return { rows: rows.slice(0, page.limit), total, more: rows.length > page.limit };
  }
  const total = await countedProducts(db, storeId, filter.status);
  const fromEnd = total - page.offset - page.limit;
  if (page.offset >= total) return { rows: [], total, more: false };
  if (page.offset <= fromEnd) {
    const rows = await newestFirst(db, storeId, filter)
      .where(
        sql<boolean>`(products.created_at, products.id) <= (${boundary(db, storeId, filter, 'desc', page.offset)})`,
      )
      .limit(page.limit + 1)
      .execute();
    return { rows: rows.slice(0, page.limit), total, more: rows.length > page.limit };
  }
  // Nearer the oldest end: the page's rows are the oldest but `skip`, read oldest first and turned round.
  const skip = Math.max(0, fromEnd);
  let oldestFirst = filtered(db, storeId, filter)
    .selectAll('products')
    .select(createdMicros('products').as('created_us'))
    .orderBy('products.created_at', 'asc')
    .orderBy('products.id', 'asc')
    .limit(total - page.offset - skip);
  if (skip > 0)
    oldestFirst = oldestFirst.where(
      sql<boolean>`(products.created_at, products.id) >= (${boundary(db, storeId, filter, 'asc', skip)})`,
    );
  const rows = (await oldestFirst.execute()).reverse();
  return { rows, total, more: page.offset + rows.length < total };
}

type ListedProduct = ProductRow & { created_us: string };

function newestFirst(db: Executor, storeId: string, filter: ProductFilter) {
  return filtered(db, storeId, filter)
    .selectAll('products')
    .select(createdMicros('products').as('created_us'))
    .orderBy('products.created_at', 'desc')
    .orderBy('products.id', 'desc');
}

/** The (created_at, id) key `skip` rows from one end of the list: an index-only scan of the keys. */
function boundary(
  db: Executor,
  storeId: string,
  filter: ProductFilter,
  direction: 'asc' | 'desc',
  skip: number,
) {
  return filtered(db, storeId, filter)
    .select(['products.created_at', 'products.id'])
    .orderBy('products.created_at', direction)
    .orderBy('products.id', direction)
    .offset(skip)
    .limit(1);
}

/** One page of listProducts, without the count (for callers that cache the total). */
export function listProductPage(
  db: Executor,
  storeId: string,
  filter: ProductFilter,
  page: { offset: number; limit: number },
  sort: ProductSort = 'newest',
): Promise<ProductRow[]> {
  let rowsQuery = filtered(db, storeId, filter).selectAll('products');
  switch (sort) {
    case 'price_asc':
      rowsQuery = rowsQuery.orderBy('products.price', 'asc').orderBy('products.id', 'asc');
      break;
    case 'price_desc':
      rowsQuery = rowsQuery.orderBy('products.price', 'desc').orderBy('products.id', 'desc');
      break;
    case 'name':
      rowsQuery = rowsQuery.orderBy(sql`lower(products.name)`, 'asc').orderBy('products.id', 'asc');
      break;
    default:
      rowsQuery = rowsQuery.orderBy('products.created_at', 'desc').orderBy('products.id', 'desc');
  }
  return rowsQuery.limit(page.limit).offset(page.offset).execute();
}

/** The exact number of matching products: it visits every match, so it grows with the catalogue. */
export async function countProducts(db: Executor, storeId: string, filter: ProductFilter): Promise<number> {
  const count = await filtered(db, storeId, filter)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  return Number(count.total);
}

/** A row lock lasts until the transaction ends, so only a transaction may ask for one. */
export function findProduct(
  db: Tx,
  storeId: string,
  id: string,
  options: { forUpdate: true },
): Promise<ProductRow | undefined>;
export function findProduct(
  db: Executor,
  storeId: string,
  id: string,
  options?: { forUpdate?: false },
): Promise<ProductRow | undefined>;
export function findProduct(
  db: Executor,
  storeId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
) {
  let query = db.selectFrom('products').selectAll().where('store_id', '=', storeId).where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export function findProductBySlug(db: Executor, storeId: string, slug: string, status?: ProductStatus) {
  let query = db.selectFrom('products').selectAll().where('store_id', '=', storeId).where('slug', '=', slug);
  if (status) query = query.where('status', '=', status);
  return query.executeTakeFirst();
}

export async function slugTaken(
  db: Executor,
  storeId: string,
  slug: string,
  exceptId?: string,
): Promise<boolean> {
  let query = db.selectFrom('products').select('id').where('store_id', '=', storeId).where('slug', '=', slug);
  if (exceptId) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

/**
 * Until the transaction ends, serialises the creations that generate a slug from the same base, so
 * concurrent ones see each other's slug and pick distinct suffixes instead of colliding.
 */
export async function lockSlugBase(tx: Tx, storeId: string, base: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`products:${storeId}:${base}`}))`.execute(tx);
}

/** One array parameter, not one parameter per id: 50 ids were 50 values to bind and plan, three times. */
const anyOf = (ids: string[]) => sql<string>`any(${ids}::uuid[])`;

/** Variants, media and category ids of many products in three queries, grouped by product. */
export async function loadDetails(db: Executor, storeId: string, productIds: string[]) {
  const details = new Map<string, ProductDetails>(
    productIds.map((id) => [id, { variants: [], media: [], categoryIds: [] }]),
  );
  if (productIds.length === 0) return details;
  const [variants, media, categories] = await Promise.all([
    db
      .selectFrom('product_variants')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('product_id', '=', anyOf(productIds))
      .orderBy('position')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('product_media')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('product_id', '=', anyOf(productIds))
      .orderBy('position')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('product_categories')
      .select(['product_id', 'category_id'])
      .where('store_id', '=', storeId)
      .where('product_id', '=', anyOf(productIds))
      .orderBy('category_id')
      .execute(),
  ]);
  for (const v of variants) details.get(v.product_id)?.variants.push(v);
  for (const m of media) details.get(m.product_id)?.media.push(m);
  for (const c of categories) details.get(c.product_id)?.categoryIds.push(c.category_id);
  return details;
}

/** Primary image URL of each product (first image when none is marked primary). */
export async function primaryImages(db: Executor, storeId: string, productIds: string[]) {
  const images = new Map<string, string>();
  if (productIds.length === 0) return images;
  const rows = await db
    .selectFrom('product_media')
    .select(['product_id', 'url'])
    .distinctOn('product_id')
    .where('store_id', '=', storeId)
    .where('product_id', 'in', productIds)
    .where('media_type', '=', 'image')
    .orderBy('product_id')
    .orderBy('is_primary', 'desc')
    .orderBy('position')
    .execute();
  for (const row of rows) images.set(row.product_id, row.url);
  return images;
}

export function insertProduct(db: Executor, row: Insertable<ProductsTable>) {
  return db.insertInto('products').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateProduct(db: Executor, storeId: string, id: string, patch: Updateable<ProductsTable>) {
  return db
    .updateTable('products')
    .set(patch)
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteProduct(db: Executor, storeId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('products')
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertVariants(db: Executor, rows: Insertable<ProductVariantsTable>[]) {
  if (rows.length) await db.insertInto('product_variants').values(rows).execute();
}

export function updateVariant(
  db: Executor,
  storeId: string,
  id: string,
  patch: Updateable<ProductVariantsTable>,
) {
  return db
    .updateTable('product_variants')
    .set(patch)
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .execute();
}

export async function deleteVariantsExcept(db: Executor, storeId: string, productId: string, keep: string[]) {
  let query = db
    .deleteFrom('product_variants')
    .where('store_id', '=', storeId)
    .where('product_id', '=', productId);
  if (keep.length) query = query.where('id', 'not in', keep);
  await query.execute();
}

export async function replaceMedia(
  db: Executor,
  storeId: string,
  productId: string,
  rows: Insertable<ProductMediaTable>[],
) {
  await db
    .deleteFrom('product_media')
    .where('store_id', '=', storeId)
    .where('product_id', '=', productId)
    .execute();
  if (rows.length) await db.insertInto('product_media').values(rows).execute();
}

export async function replaceCategories(
  db: Executor,
  storeId: string,
  productId: string,
  categoryIds: string[],
) {
  await db
    .deleteFrom('product_categories')
    .where('store_id', '=', storeId)
    .where('product_id', '=', productId)
    .execute();
  if (categoryIds.length) {
    await db
      .insertInto('product_categories')
      .values(categoryIds.map((category_id) => ({ store_id: storeId, product_id: productId, category_id })))
      .execute();
  }
}

/** What an order needs of its products: prices, names, SKUs, variants and categories. */
export interface ProductForOrder {
  id: string;
  name: string;
  status: string;
  price: number;
  sku: string | null;
  variants: { id: string; title: string; price: number; sku: string | null }[];
  category_ids: string[];
}

/**
 * The products an order line may be priced from, each with its variants and categories, in one
 * statement (checkout runs inside a transaction, where every round trip counts).
 */
export async function findForOrder(
  db: Executor,
  storeId: string,
  productIds: string[],
): Promise<ProductForOrder[]> {
  if (productIds.length === 0) return [];
  return (await db.executeQuery(findForOrderQuery(db, storeId, productIds))).rows;
}

/** findForOrder as a query (for readTogether: its JSON rows are ProductForOrder as they are). */
export function findForOrderQuery(
  db: Executor,
  storeId: string,
  productIds: string[],
): CompiledQuery<ProductForOrder> {
  return sql<ProductForOrder>`
    SELECT p.id, p.name, p.status, p.price, p.sku,
      COALESCE((
        SELECT json_agg(json_build_object('id', v.id, 'title', v.title, 'price', v.price, 'sku', v.sku))
        FROM product_variants v WHERE v.store_id = p.store_id AND v.product_id = p.id
      ), '[]'::json) AS variants,
      ARRAY(
        SELECT c.category_id FROM product_categories c WHERE c.store_id = p.store_id AND c.product_id = p.id
      ) AS category_ids
    FROM products p
    WHERE p.store_id = ${storeId} AND p.id = ANY(${productIds}::uuid[])`.compile(db);
}

/** Stock facts of products and their variants (carts check quantities against them; no lock). */
export async function findStockLevels(db: Executor, storeId: string, productIds: string[]) {
  if (productIds.length === 0) return [];
  const result = await sql<{
    id: string;
    status: string;
    track_inventory: boolean;
    inventory: number;
    variants: { id: string; inventory: number }[];
  }>`
    SELECT p.id, p.status, p.track_inventory, p.inventory,
      COALESCE((
        SELECT json_agg(json_build_object('id', v.id, 'inventory', v.inventory))
        FROM product_variants v WHERE v.store_id = p.store_id AND v.product_id = p.id
      ), '[]'::json) AS variants
    FROM products p
    WHERE p.store_id = ${storeId} AND p.id = ANY(${productIds}::uuid[])`.execute(db);
  return result.rows;
}

export function findActiveProducts(db: Executor, storeId: string, ids: string[]) {
  return db
    .selectFrom('products')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('status', '=', 'active')
    .where('id', 'in', ids)
    .execute();
}
