import type { Insertable, Selectable, Updateable } from 'kysely';
import { sql } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';
import type { CategoriesTable } from './catalog.tables.js';

export type CategoryRow = Selectable<CategoriesTable> & { product_count: number };

/** Product counts: all products for the merchant view, only active ones for the storefront. */
function withCounts(db: Executor, storeId: string, activeOnly: boolean) {
  return db
    .selectFrom('categories as c')
    .selectAll('c')
    .select((eb) =>
      eb
        .selectFrom('product_categories as pc')
        .innerJoin('products as p', 'p.id', 'pc.product_id')
        .select(sql<number>`count(*)::int`.as('n'))
        .whereRef('pc.category_id', '=', 'c.id')
        .$if(activeOnly, (q) => q.where('p.status', '=', 'active'))
        .as('product_count'),
    )
    .where('c.store_id', '=', storeId);
}

export async function listCategories(
  db: Executor,
  storeId: string,
  page: { offset: number; limit: number },
  options: { activeOnly?: boolean; parentId?: string | null } = {},
): Promise<{ rows: CategoryRow[]; total: number }> {
  let rows = withCounts(db, storeId, options.activeOnly ?? false);
  let count = db.selectFrom('categories').where('store_id', '=', storeId);
  if (options.parentId !== undefined) {
    const parentId = options.parentId;
    rows =
      parentId === null ? rows.where('c.parent_id', 'is', null) : rows.where('c.parent_id', '=', parentId);
    count =
      parentId === null ? count.where('parent_id', 'is', null) : count.where('parent_id', '=', parentId);
  }
  const [data, total] = await Promise.all([
    rows
      .orderBy('c.position')
      .orderBy(sql`lower(c.name)`)
      .orderBy('c.name')
      .orderBy('c.id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    count.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: data as CategoryRow[], total: Number(total.n) };
}

export async function findCategory(db: Executor, storeId: string, id: string) {
  return (await withCounts(db, storeId, false).where('c.id', '=', id).executeTakeFirst()) as
    | CategoryRow
    | undefined;
}

export async function existingCategoryIds(
  db: Executor,
  storeId: string,
  ids: string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('categories')
    .select('id')
    .where('store_id', '=', storeId)
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** As for products: concurrent creations generating a slug from one base take turns. */
export async function lockSlugBase(tx: Tx, storeId: string, base: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`categories:${storeId}:${base}`}))`.execute(tx);
}

/** The category's version, its row locked until the transaction ends (an edit compares it). */
export function lockCategory(tx: Tx, storeId: string, id: string) {
  return tx
    .selectFrom('categories')
    .select(['id', 'updated_at'])
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Category writes that set a name or a parent take turns per store, so two of them cannot both
 * find a name free under one parent (no unique index: stores may hold duplicates from before).
 */
export async function lockCategoryNames(tx: Tx, storeId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`category-names:${storeId}`}))`.execute(tx);
}

/** A category (other than `exceptId`) named `name`, case-insensitively, under `parentId` (null: top level). */
export function siblingNamed(
  db: Executor,
  storeId: string,
  parentId: string | null,
  name: string,
  exceptId?: string,
) {
  let query = db
    .selectFrom('categories')
    .select(['id', 'name'])
    .where('store_id', '=', storeId)
    .where(sql<boolean>`parent_id IS NOT DISTINCT FROM ${parentId}::uuid`)
    .where(sql<boolean>`lower(name) = lower(${name})`);
  if (exceptId) query = query.where('id', '<>', exceptId);
  return query.executeTakeFirst();
}

export async function slugTaken(db: Executor, storeId: string, slug: string): Promise<boolean> {
  const row = await db
    .selectFrom('categories')
    .select('id')
    .where('store_id', '=', storeId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row !== undefined;
}

/** Ancestors of a category, nearest first, to refuse a parent that would close a cycle. */
export async function ancestorIds(db: Executor, storeId: string, id: string): Promise<string[]> {
  const result = await sql<{ id: string }>`
    WITH RECURSIVE chain AS (
      SELECT id, parent_id, 1 AS depth FROM categories WHERE store_id = ${storeId} AND id = ${id}
      UNION ALL
      SELECT c.id, c.parent_id, chain.depth + 1 FROM categories c
      JOIN chain ON c.id = chain.parent_id
      WHERE c.store_id = ${storeId} AND chain.depth < 100
    )
    SELECT id FROM chain`.execute(db);
  return result.rows.map((r) => r.id);
}

export function insertCategory(db: Executor, row: Insertable<CategoriesTable>) {
  return db.insertInto('categories').values(row).returning('id').executeTakeFirstOrThrow();
}

export function updateCategory(
  db: Executor,
  storeId: string,
  id: string,
  patch: Updateable<CategoriesTable>,
) {
  return db
    .updateTable('categories')
    .set(patch)
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function deleteCategory(db: Executor, storeId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('categories')
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
