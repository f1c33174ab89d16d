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

export type ProductRow = Selectable<ProductsTable>;

export interface ProductFilter {
  status?: ProductStatus;
  categoryId?: string;
  categorySlug?: string;
  q?: string;
}

export type ProductSort = 'newest' | 'price_asc' | 'price_desc' | 'name';

export function filtered(db: Executor, storeId: string, filter: ProductFilter) {
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

/**
 * The exact number of the store's products (of one status): the sum of the counters kept by
 * triggers, as a one-row table `t (total)` for the page statements of countedPage.
 */
const counted = (status: boolean) =>
  `select coalesce(sum(count), 0)::bigint as total from product_counts where store_id = $1${status ? ' and status = $2' : ''}`;

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
): Promise<ListedPage> {
  if (isCounted(filter)) return countedPage(db, storeId, filter.status, page);
  const [rows, total] = await Promise.all([
    page.after
      ? newestFirst(db, storeId, filter)
          .where(olderThan('products', page.after))
          .limit(page.limit + 1)
          .execute()
      : newestFirst(db, storeId, filter)
          .offset(page.offset)
          .limit(page.limit + 1)
          .execute(),
    countProducts(db, storeId, filter),
  ]);
  return { rows: rows.slice(0, page.limit), total, more: rows.length > page.limit };
}

type ListedProduct = ProductRow & { created_us: string };
/** A page of the merchant's list; `details` when its statement read them too (else listDetails does). */
interface ListedPage {
  rows: ListedProduct[];
  total: number;
  more: boolean;
  details?: Map<string, ListedDetails>;
}

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
  'products.weight_grams',
  'products.taxable',
  'products.created_at',
  'products.updated_at',
] as const;

const COLUMNS = `${PRODUCT_COLUMNS.join(', ')}, ${createdMicrosText('products')} as created_us`;

/**
 * The most rows a page statement reads with the text that caps them (the lists' largest limit, 100,
 * and one more). PostgreSQL plans a prepared statement for its parameters' values until a plan for
 * any values looks no dearer; under `limit $n` alone that generic plan is costed at a tenth of the
 * store's products, so the first page was planned again at every execution. Under a constant limit
 * the generic plan costs what the custom one does, and is kept.
 */
const MOST_ROWS = 101;

/** A row of countedPage's statement: the total beside the page's columns, these null when the page is empty. */
type CountedRow = { [K in keyof ListedProduct]: ListedProduct[K] | null } & {
  total: number;
  oldest_first?: boolean | null;
};

/**
 * A page under a counted filter (none, or a status) in one statement: the counters' total (`t`), and
 * beside it the page's rows, newest first after a cursor's key or from the first page; by number,
 * from the nearer end of the index, the page's first key found by an index-only scan of the keys
 * skipped. Which end is decided in the statement from `t.total` (two branches, only one of which
 * runs), so the count is not a round trip of its own before the page. A page past the end is the
 * counter's row alone, its product columns null. Its text is written here rather than built on each
 * request, and prepared: one text per shape; `p.*` is COLUMNS (named, see PRODUCT_COLUMNS).
 * $1 the store, $2 the status when there is one.
 */
async function countedPage(
  db: Executor,
  storeId: string,
  status: ProductStatus | undefined,
  page: { offset: number; limit: number; after?: CreatedKey },
): Promise<ListedPage> {
  const values: unknown[] = status ? [storeId, status] : [storeId];
  const param = (value: unknown) => `$${values.push(value)}`;
  const scope = (table: string) => `${table}.store_id = $1${status ? ` and ${table}.status = $2` : ''}`;
  const order = (table: string, direction: 'asc' | 'desc') =>
    `order by ${table}.created_at ${direction}, ${table}.id ${direction}`;
  /**
   * The key `skip` rows from one end of the store's index, read from the index alone, when `branch`
   * holds (it is repeated here: PostgreSQL runs a branch's sub-select even when the branch's own
   * condition is false, and this one reads up to the whole index).
   */
  const keyAt = (direction: 'asc' | 'desc', skip: string, branch: string) =>
    `(select b.created_at, b.id from products b where ${scope('b')} and ${branch} ${order('b', direction)} offset ${skip} limit 1)`;
  /** `rows` limited to `limit`, under MOST_ROWS written in the text when that is enough. */
  const limited = (rows: string, limit: string) =>
    page.limit + 1 <= MOST_ROWS
      ? `select * from (${rows} limit ${MOST_ROWS}) as capped limit ${limit}`
      : `${rows} limit ${limit}`;
  const newest = (where: string) =>
    limited(
      `select ${COLUMNS} from products where ${scope('products')}${where} ${order('products', 'desc')}`,
      param(page.limit + 1),
    );
  let rowsText: string;
  if (page.after) {
    rowsText = newest(` and ${olderThanText('products', param(page.after.t), param(page.after.i))}`);
  } else if (page.offset === 0) {
    rowsText = newest('');
  } else {
    const offset = param(page.offset);
    const limit = param(page.limit);
    // Rows after the page, counted from the oldest end: the newest end is nearer when offset <= this.
    const fromEnd = `(t.total - ${offset} - ${limit})`;
    const newer = `${offset} <= ${fromEnd}`;
    // Nearer the oldest end: the page's rows are the oldest but fromEnd, read oldest first.
    const older = `${offset} > ${fromEnd} and ${offset} < t.total`;
    const newerRows =
      `select ${COLUMNS}, false as oldest_first from products where ${scope('products')} and ${newer}` +
      ` and (products.created_at, products.id) <= ${keyAt('desc', offset, newer)} ${order('products', 'desc')}`;
    const olderRows =
      `select ${COLUMNS}, true as oldest_first from products where ${scope('products')} and ${older}` +
      ` and (products.created_at, products.id) >= ${keyAt('asc', `greatest(0, ${fromEnd})`, older)} ${order('products', 'asc')}`;
    rowsText =
      `(${limited(newerRows, `${limit} + 1`)}) union all ` +
      `(${limited(olderRows, `greatest(0, t.total - ${offset} - greatest(0, ${fromEnd}))`)})`;
  }
  const pageText = `select p.*, t.total from (${counted(status !== undefined)}) as t left join lateral (${rowsText}) as p on true`;
  // The page's columns: COLUMNS, oldest_first by number, and total; the details' row has them null.
  const pageColumns = PRODUCT_COLUMNS.length + 1 + (page.after || page.offset === 0 ? 0 : 1) + 1;
  const text =
    `with page as materialized (${pageText}) ` +
    `select page.*, null::json as media, null::json as variants, null::json as categories from page union all ` +
    `select ${Array(pageColumns).fill('null').join(', ')}, d.* from (${detailsOf('array(select page.id from page)')}) as d`;
  const result = await db.executeQuery<CountedRow & Partial<DetailsRow>>(
    prepared(CompiledQuery.raw(text, values)),
  );
  // The page's rows, then the row of their details (media never null there: '[]' at least).
  const found = result.rows.at(-1);
  const pageRows = result.rows.slice(0, -1);
  const first = pageRows[0];
  const total = Number(first?.total ?? 0);
  if (!first || first.id === null) return { rows: [], total, more: false, details: new Map() };
  const rows = pageRows as ListedProduct[];
  if (first.oldest_first) rows.reverse();
  const shown = first.oldest_first ? rows : rows.slice(0, page.limit);
  const details = detailsByProduct(
    shown.map((r) => r.id),
    found?.media ? (found as DetailsRow) : undefined,
  );
  return first.oldest_first
    ? { rows, total, more: page.offset + rows.length < total, details }
    : { rows: shown, total, more: rows.length > page.limit, details };
}

function newestFirst(db: Executor, storeId: string, filter: ProductFilter) {
  return filtered(db, storeId, filter)
    .select(PRODUCT_COLUMNS)
    .select(createdMicros('products').as('created_us'))
    .orderBy('products.created_at', 'desc')
    .orderBy('products.id', 'desc');
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
/** A media item as a list shows it: without its store, original URL or dates. */
export type ListedMedia = Pick<
  Selectable<ProductMediaTable>,
  'id' | 'product_id' | 'media_type' | 'url' | 'alt' | 'is_primary' | 'position'
>;
export interface ListedDetails {
  variants: ListedVariant[];
  media: ListedMedia[];
  categoryIds: string[];
}

/**
 * The page's variants, media and category ids in one statement, each list aggregated to JSON in the
 * order loadDetails reads them: one round trip and one query instead of three. A media item is an
 * array of the columns a list shows (PostgreSQL writes a whole row as an object, its keys and dates
 * included, for every image of the page). $1 the store (every table is read by it); `ids` the
 * page's product ids (a parameter, or the page's own statement's ids).
 */
const detailsOf = (ids: string) => `select
  (select coalesce(json_agg(json_build_array(m.id, m.product_id, m.media_type, m.url, m.alt, m.is_primary,
      m.position) order by m.position, m.id), '[]')
    from product_media m where m.store_id = $1 and m.product_id = any(${ids})) as media,
  (select coalesce(json_agg(json_build_object('id', v.id, 'store_id', v.store_id, 'product_id', v.product_id,
      'title', v.title, 'sku', v.sku, 'price', v.price, 'compare_price', v.compare_price,
      'inventory', v.inventory, 'weight_grams', v.weight_grams, 'options', v.options, 'position', v.position) order by v.position, v.id), '[]')
    from product_variants v where v.store_id = $1 and v.product_id = any(${ids})) as variants,
  (select coalesce(json_agg(json_build_array(c.product_id, c.category_id) order by c.category_id), '[]')
    from product_categories c where c.store_id = $1 and c.product_id = any(${ids})) as categories`;
const LIST_DETAILS = detailsOf('$2::uuid[]');

type MediaColumns = [
  id: string,
  productId: string,
  mediaType: ListedMedia['media_type'],
  url: string,
  alt: string | null,
  isPrimary: boolean,
  position: number,
];

interface DetailsRow {
  media: MediaColumns[];
  variants: ListedVariant[];
  categories: [productId: string, categoryId: string][];
}

/** The page's details by product id, from the row of detailsOf. */
function detailsByProduct(productIds: string[], found: DetailsRow | undefined) {
  const details = new Map<string, ListedDetails>(
    productIds.map((id) => [id, { variants: [], media: [], categoryIds: [] }]),
  );
  if (!found) return details;
  for (const v of found.variants) details.get(v.product_id)?.variants.push(v);
  for (const [id, product_id, media_type, url, alt, is_primary, position] of found.media)
    details.get(product_id)?.media.push({ id, product_id, media_type, url, alt, is_primary, position });
  for (const [productId, categoryId] of found.categories)
    details.get(productId)?.categoryIds.push(categoryId);
  return details;
}

export async function listDetails(db: Executor, storeId: string, productIds: string[]) {
  if (productIds.length === 0) return detailsByProduct(productIds, undefined);
  const { rows } = await db.executeQuery<DetailsRow>(
    prepared(CompiledQuery.raw(LIST_DETAILS, [storeId, productIds])),
  );
  return detailsByProduct(productIds, rows[0]);
}
