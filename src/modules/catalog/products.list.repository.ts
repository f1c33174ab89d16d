/** The merchant's and the storefront's product lists: filters, sorts, numbered and keyset pages, totals. */
import { CompiledQuery, type Selectable, sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import {
  type CreatedKey,
  createdMicros,
  createdMicrosText,
  olderThan,
  olderThanText,
} from '../../platform/db/keyset.js';
import { containsPattern } from '../../platform/db/like.js';
import { prepared } from '../../platform/db/prepared.js';
import type {
  ProductMediaTable,
  ProductStatus,
  ProductsTable,
  ProductVariantsTable,
} from './catalog.tables.js';

type ProductRow = Selectable<ProductsTable>;

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
  const { rows } = await db.executeQuery<{ total: string }>(
    status
      ? prepared(CompiledQuery.raw(`${COUNTED} and status = $2`, [storeId, status]))
      : prepared(CompiledQuery.raw(COUNTED, [storeId])),
  );
  return Number(rows[0]?.total ?? 0);
}
const COUNTED = 'select coalesce(sum(count), 0)::text as total from product_counts where store_id = $1';

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
      isCounted(filter)
        ? countedRows(db, storeId, filter.status, {
            direction: 'desc',
            limit: page.limit + 1,
            after: page.after,
          })
        : newestFirst(db, storeId, filter)
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
      countedRows(db, storeId, filter.status, { direction: 'desc', limit: page.limit + 1 }),
      countedProducts(db, storeId, filter.status),
    ]);
    return { rows: rows.slice(0, page.limit), total, more: rows.length > page.limit };
  }
  const total = await countedProducts(db, storeId, filter.status);
  const fromEnd = total - page.offset - page.limit;
  if (page.offset >= total) return { rows: [], total, more: false };
  if (page.offset <= fromEnd) {
    const rows = await countedRows(db, storeId, filter.status, {
      direction: 'desc',
      limit: page.limit + 1,
      skip: page.offset,
    });
    return { rows: rows.slice(0, page.limit), total, more: rows.length > page.limit };
  }
  // Nearer the oldest end: the page's rows are the oldest but `skip`, read oldest first and turned round.
  const skip = Math.max(0, fromEnd);
  const rows = (
    await countedRows(db, storeId, filter.status, {
      direction: 'asc',
      limit: total - page.offset - skip,
      skip: skip > 0 ? skip : undefined,
    })
  ).reverse();
  return { rows, total, more: page.offset + rows.length < total };
}

type ListedProduct = ProductRow & { created_us: string };

/** Every column, named: a prepared statement's result must not change when a migration adds one. */
const PRODUCT_COLUMNS = [
  'products.id',
  'products.store_id',
  'products.name',
  'products.slug',
  'products.description',
  'products.status',
  'products.price',
  'products.compare_price',
  'products.sku',
  'products.inventory',
  'products.track_inventory',
  'products.low_stock_threshold',
  'products.options',
  'products.created_at',
  'products.updated_at',
] as const;

const COLUMNS = `${PRODUCT_COLUMNS.join(', ')}, ${createdMicrosText('products')} as created_us`;

/**
 * The page's rows under a counted filter (none, or a status), newest or oldest first, from the row
 * `skip` rows from that end (found by an index-only scan of the keys) or after a cursor's key. The
 * text is written here rather than built on each request, and prepared: one text per shape.
 * $1 the store, $2 the status when there is one.
 */
async function countedRows(
  db: Executor,
  storeId: string,
  status: ProductStatus | undefined,
  page: { direction: 'asc' | 'desc'; limit: number; skip?: number; after?: CreatedKey },
): Promise<ListedProduct[]> {
  const values: unknown[] = status ? [storeId, status] : [storeId];
  const param = (value: unknown) => `$${values.push(value)}`;
  const scope = (table: string) => `${table}.store_id = $1${status ? ` and ${table}.status = $2` : ''}`;
  const order = (table: string) =>
    `order by ${table}.created_at ${page.direction}, ${table}.id ${page.direction}`;
  let text = `select ${COLUMNS} from products where ${scope('products')}`;
  if (page.skip !== undefined)
    text += ` and (products.created_at, products.id) ${page.direction === 'desc' ? '<=' : '>='} (select b.created_at, b.id from products b where ${scope('b')} ${order('b')} offset ${param(page.skip)} limit 1)`;
  if (page.after) text += ` and ${olderThanText('products', param(page.after.t), param(page.after.i))}`;
  text += ` ${order('products')} limit ${param(page.limit)}`;
  return (await db.executeQuery<ListedProduct>(prepared(CompiledQuery.raw(text, values)))).rows;
}

function newestFirst(db: Executor, storeId: string, filter: ProductFilter) {
  return filtered(db, storeId, filter)
    .select(PRODUCT_COLUMNS)
    .select(createdMicros('products').as('created_us'))
    .orderBy('products.created_at', 'desc')
    .orderBy('products.id', 'desc');
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

/** A variant as a list shows it: its row without the dates. */
export type ListedVariant = Omit<Selectable<ProductVariantsTable>, 'created_at' | 'updated_at'>;
export interface ListedDetails {
  variants: ListedVariant[];
  media: Selectable<ProductMediaTable>[];
  categoryIds: string[];
}

/**
 * The page's variants, media and category ids in one statement, each list aggregated to JSON in the
 * order loadDetails reads them: one round trip and one query instead of three. Its text is fixed:
 * $1 the store (every table is read by it), $2 the page's product ids.
 */
const LIST_DETAILS = `select
  (select coalesce(json_agg(m order by m.position, m.id), '[]') from product_media m
    where m.store_id = $1 and m.product_id = any($2::uuid[])) as media,
  (select coalesce(json_agg(json_build_object('id', v.id, 'store_id', v.store_id, 'product_id', v.product_id,
      'title', v.title, 'sku', v.sku, 'price', v.price, 'compare_price', v.compare_price,
      'inventory', v.inventory, 'options', v.options, 'position', v.position) order by v.position, v.id), '[]')
    from product_variants v where v.store_id = $1 and v.product_id = any($2::uuid[])) as variants,
  (select coalesce(json_agg(json_build_array(c.product_id, c.category_id) order by c.category_id), '[]')
    from product_categories c where c.store_id = $1 and c.product_id = any($2::uuid[])) as categories`;

export async function listDetails(db: Executor, storeId: string, productIds: string[]) {
  const details = new Map<string, ListedDetails>(
    productIds.map((id) => [id, { variants: [], media: [], categoryIds: [] }]),
  );
  if (productIds.length === 0) return details;
  const { rows } = await db.executeQuery<{
    media: Selectable<ProductMediaTable>[];
    variants: ListedVariant[];
    categories: [productId: string, categoryId: string][];
  }>(prepared(CompiledQuery.raw(LIST_DETAILS, [storeId, productIds])));
  const [found] = rows;
  if (!found) return details;
  for (const v of found.variants) details.get(v.product_id)?.variants.push(v);
  for (const m of found.media) details.get(m.product_id)?.media.push(m);
  for (const [productId, categoryId] of found.categories)
    details.get(productId)?.categoryIds.push(categoryId);
  return details;
}
