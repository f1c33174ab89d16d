import { type CompiledQuery, type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';
import { jsonDate } from '../../platform/db/read-together.js';
import { compiled, isSqlText, type SqlText, sqlText } from '../../platform/db/sql-text.js';
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

export * from './products.list.repository.js';
export * from './products.shop-list.repository.js';

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
  weight_grams: number;
  taxable: boolean;
  /** weight_grams null: the product's. */
  variants: { id: string; title: string; price: number; sku: string | null; weight_grams: number | null }[];
  category_ids: string[];
}

/**
 * Which products a lookup reads: their ids, or SQL that yields a `uuid[]` (the products of a cart's
 * lines, read in the same statement as the lookup: carts.repository's `productIdsOfCart`).
 */
export type ProductIds = string[] | SqlText;
const idArray = (ids: ProductIds) => (isSqlText(ids) ? ids : sqlText`${ids}::uuid[]`);

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
  return (await db.executeQuery(findForOrderQuery(storeId, productIds))).rows;
}

/** findForOrder as a query (for readTogether: its JSON rows are ProductForOrder as they are). */
export function findForOrderQuery(storeId: string, productIds: ProductIds): CompiledQuery<ProductForOrder> {
  return compiled(sqlText`
    SELECT p.id, p.name, p.status, p.price, p.sku, p.weight_grams, p.taxable,
      COALESCE((
        SELECT json_agg(json_build_object(
          'id', v.id, 'title', v.title, 'price', v.price, 'sku', v.sku, 'weight_grams', v.weight_grams))
        FROM product_variants v WHERE v.store_id = p.store_id AND v.product_id = p.id
      ), '[]'::json) AS variants,
      ARRAY(
        SELECT c.category_id FROM product_categories c WHERE c.store_id = p.store_id AND c.product_id = p.id
      ) AS category_ids
    FROM products p
    WHERE p.store_id = ${storeId} AND p.id = ANY(${idArray(productIds)})`);
}

/**
 * An active product by slug with its variants, media and category ids, in one statement: the
 * storefront's product page renders once per product every few seconds under traffic (its answer is
 * cached for at most 5 s), and four round trips a render were what its refreshes queued on.
 */
export async function findStorefrontPage(
  db: Executor,
  storeId: string,
  slug: string,
): Promise<{ row: ProductRow; details: ProductDetails } | undefined> {
  const result = await sql<
    ProductRow & { variants: JsonRow<VariantRow>[]; media: MediaRow[]; category_ids: string[] }
  >`
    SELECT p.*,
      COALESCE((
        SELECT json_agg(v ORDER BY v.position, v.id) FROM product_variants v
        WHERE v.store_id = p.store_id AND v.product_id = p.id
      ), '[]'::json) AS variants,
      COALESCE((
        SELECT json_agg(m ORDER BY m.position, m.id) FROM product_media m
        WHERE m.store_id = p.store_id AND m.product_id = p.id
      ), '[]'::json) AS media,
      ARRAY(
        SELECT c.category_id FROM product_categories c
        WHERE c.store_id = p.store_id AND c.product_id = p.id ORDER BY c.category_id
      ) AS category_ids
    FROM products p
    WHERE p.store_id = ${storeId} AND p.slug = ${slug} AND p.status = 'active'`.execute(db);
  const found = result.rows[0];
  if (!found) return undefined;
  const { variants, media, category_ids, ...row } = found;
  return {
    row,
    details: {
      variants: variants.map((v) => ({
        ...v,
        created_at: jsonDate(v.created_at),
        updated_at: jsonDate(v.updated_at),
      })),
      media,
      categoryIds: category_ids,
    },
  };
}

/** A row as json_agg gives it: its timestamps are strings. */
type JsonRow<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] };

/** What a cart shows of a product besides its price (products.lookups' CartProductFacts, as rows). */
export interface CartFactsRow {
  id: string;
  status: string;
  track_inventory: boolean;
  inventory: number;
  variants: { id: string; inventory: number }[];
  /** The primary image's URL (the first image when none is marked primary); null without `images`. */
  image: string | null;
}

/**
 * Stock facts of products and their variants (carts check quantities against them; no lock) and,
 * with `images`, each product's primary image, in one statement.
 */
export function cartFactsQuery(
  storeId: string,
  productIds: ProductIds,
  { images }: { images: boolean },
): CompiledQuery<CartFactsRow> {
  const image = images
    ? sqlText`(
        SELECT m.url FROM product_media m
        WHERE m.store_id = p.store_id AND m.product_id = p.id AND m.media_type = 'image'
        ORDER BY m.is_primary DESC, m.position LIMIT 1)`
    : sqlText`NULL::text`;
  return compiled(sqlText`
    SELECT p.id, p.status, p.track_inventory, p.inventory,
      COALESCE((
        SELECT json_agg(json_build_object('id', v.id, 'inventory', v.inventory))
        FROM product_variants v WHERE v.store_id = p.store_id AND v.product_id = p.id
      ), '[]'::json) AS variants,
      ${image} AS image
    FROM products p
    WHERE p.store_id = ${storeId} AND p.id = ANY(${idArray(productIds)})`);
}

export async function findCartFacts(
  db: Executor,
  storeId: string,
  productIds: string[],
  options: { images: boolean },
): Promise<CartFactsRow[]> {
  if (productIds.length === 0) return [];
  return (await db.executeQuery(cartFactsQuery(storeId, productIds, options))).rows;
}
