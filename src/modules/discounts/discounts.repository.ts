import type { Insertable, Selectable, Updateable } from 'kysely';
import { CompiledQuery, sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { containsPattern } from '../../platform/db/like.js';
import { jsonDate, jsonDateOrNull } from '../../platform/db/read-together.js';
import type { DiscountsTable } from './discounts.tables.js';

export type DiscountRow = Selectable<DiscountsTable>;
export interface DiscountTargets {
  productIds: string[];
  categoryIds: string[];
}
export type DiscountWithTargets = DiscountRow & DiscountTargets;

export interface DiscountFilter {
  active?: boolean;
  q?: string;
}

function filtered(db: Executor, storeId: string, filter: DiscountFilter) {
  let query = db.selectFrom('discounts').where('store_id', '=', storeId);
  if (filter.active !== undefined) query = query.where('active', '=', filter.active);
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    query = query.where((eb) => eb.or([eb('code', 'ilike', pattern), eb('title', 'ilike', pattern)]));
  }
  return query;
}

/** Newest first; the (store_id, created_at, id) index serves the page. */
export async function listDiscounts(
  db: Executor,
  storeId: string,
  filter: DiscountFilter,
  page: { offset: number; limit: number },
): Promise<{ rows: DiscountWithTargets[]; total: number }> {
  const [rows, count] = await Promise.all([
    filtered(db, storeId, filter)
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    filtered(db, storeId, filter)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: await withTargets(db, storeId, rows), total: Number(count.total) };
}

/** The product and category ids of each discount, in one query per table. */
export async function withTargets(
  db: Executor,
  storeId: string,
  rows: DiscountRow[],
): Promise<DiscountWithTargets[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [products, categories] = await Promise.all([
    db
      .selectFrom('discount_products')
      .select(['discount_id', 'product_id'])
      .where('store_id', '=', storeId)
      .where('discount_id', 'in', ids)
      .orderBy('discount_id')
      .orderBy('product_id')
      .execute(),
    db
      .selectFrom('discount_categories')
      .select(['discount_id', 'category_id'])
      .where('store_id', '=', storeId)
      .where('discount_id', 'in', ids)
      .orderBy('discount_id')
      .orderBy('category_id')
      .execute(),
  ]);
  const byId = new Map<string, DiscountWithTargets>(
    rows.map((r) => [r.id, { ...r, productIds: [], categoryIds: [] }]),
  );
  for (const p of products) byId.get(p.discount_id)?.productIds.push(p.product_id);
  for (const c of categories) byId.get(c.discount_id)?.categoryIds.push(c.category_id);
  return rows.map((r) => byId.get(r.id) as DiscountWithTargets);
}

export async function findDiscount(db: Executor, storeId: string, id: string) {
  const row = await db
    .selectFrom('discounts')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? (await withTargets(db, storeId, [row]))[0] : undefined;
}

/** The discount's version, its row locked until the transaction ends (an edit compares it). */
export function lockDiscount(tx: Executor, storeId: string, id: string) {
  return tx
    .selectFrom('discounts')
    .select(['id', 'updated_at'])
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** Case-insensitive; served by the unique (store_id, lower(code)) index. */
export async function findDiscountByCode(db: Executor, storeId: string, code: string) {
  const row = await db
    .selectFrom('discounts')
    .selectAll()
    .where('store_id', '=', storeId)
    .where(sql<string>`lower(code)`, '=', code.toLowerCase())
    .where('code', 'is not', null)
    .executeTakeFirst();
  return row ? (await withTargets(db, storeId, [row]))[0] : undefined;
}

/** Active automatic discounts whose window contains `now` (the evaluator checks the rest). */
export async function listAutomaticCandidates(db: Executor, storeId: string, now: Date) {
  const rows = await automaticCandidatesQuery(db, storeId, now).execute();
  return withTargets(db, storeId, rows);
}

/** listAutomaticCandidates' rows as a query (for readTogether, ordered by AUTOMATIC_ORDER). */
export function automaticCandidatesQuery(db: Executor, storeId: string, now: Date) {
  return db
    .selectFrom('discounts')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('code', 'is', null)
    .where('active', '=', true)
    .where('starts_at', '<=', now)
    .where((eb) => eb.or([eb('ends_at', 'is', null), eb('ends_at', '>', now)]))
    .orderBy('created_at')
    .orderBy('id');
}
export const AUTOMATIC_ORDER = 'created_at, id';

/** automaticCandidatesQuery's SQL text, once Kysely has shown its parameters are (store, true, now, now). */
let automaticText: string | undefined;

/**
 * automaticCandidatesQuery compiled: the text is made by Kysely once and kept, each call only binds
 * the store and the time (every checkout reads the automatic discounts; building and compiling this
 * query was about 4% of its JavaScript). Should Kysely ever order the parameters otherwise, it is
 * compiled at each call as before.
 */
export function automaticCandidatesCompiled(db: Executor, storeId: string, now: Date): CompiledQuery {
  if (automaticText) return CompiledQuery.raw(automaticText, [storeId, true, now, now]);
  const compiled = automaticCandidatesQuery(db, storeId, now).compile();
  const [store, active, from, until, ...rest] = compiled.parameters;
  if (store === storeId && active === true && from === now && until === now && rest.length === 0)
    automaticText = compiled.sql;
  return compiled;
}

/** Discount rows that came back as JSON (readTogether), with their timestamps as Dates again. */
export function discountsFromJson(rows: unknown[]): DiscountRow[] {
  return (rows as DiscountRow[]).map((row) => ({
    ...row,
    starts_at: jsonDate(row.starts_at),
    ends_at: jsonDateOrNull(row.ends_at),
    created_at: jsonDate(row.created_at),
    updated_at: jsonDate(row.updated_at),
  }));
}

export function insertDiscount(db: Executor, row: Insertable<DiscountsTable>) {
  return db.insertInto('discounts').values(row).returning('id').executeTakeFirstOrThrow();
}

export function updateDiscount(db: Executor, storeId: string, id: string, patch: Updateable<DiscountsTable>) {
  return db
    .updateTable('discounts')
    .set(patch)
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Replaces the lists given (undefined leaves that list as it is). */
export async function replaceTargets(
  db: Executor,
  storeId: string,
  discountId: string,
  targets: Partial<DiscountTargets>,
): Promise<void> {
  if (targets.productIds) {
    await db
      .deleteFrom('discount_products')
      .where('store_id', '=', storeId)
      .where('discount_id', '=', discountId)
      .execute();
    if (targets.productIds.length > 0) {
      await db
        .insertInto('discount_products')
        .values(
          targets.productIds.map((productId) => ({
            store_id: storeId,
            discount_id: discountId,
            product_id: productId,
          })),
        )
        .execute();
    }
  }
  if (targets.categoryIds) {
    await db
      .deleteFrom('discount_categories')
      .where('store_id', '=', storeId)
      .where('discount_id', '=', discountId)
      .execute();
    if (targets.categoryIds.length > 0) {
      await db
        .insertInto('discount_categories')
        .values(
          targets.categoryIds.map((categoryId) => ({
            store_id: storeId,
            discount_id: discountId,
            category_id: categoryId,
          })),
        )
        .execute();
    }
  }
}

export async function deleteDiscount(db: Executor, storeId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('discounts')
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The discounts among `discountIds` this customer has redeemed. */
export async function redeemedByCustomer(
  db: Executor,
  storeId: string,
  customerId: string,
  discountIds: string[],
): Promise<Set<string>> {
  if (discountIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('discount_redemptions')
    .select('discount_id')
    .distinct()
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .where('discount_id', 'in', discountIds)
    .execute();
  return new Set(rows.map((r) => r.discount_id));
}

/**
 * Counts one use if the limit allows it: a single conditional UPDATE, so concurrent redemptions
 * queue on the row lock and the limit is never exceeded. Undefined when the limit is reached (or
 * the discount is gone).
 */
export function incrementUsage(db: Executor, storeId: string, id: string) {
  return db
    .updateTable('discounts')
    .set((eb) => ({ usage_count: eb('usage_count', '+', 1) }))
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('usage_limit', 'is', null), eb('usage_count', '<', eb.ref('usage_limit'))]))
    .returning(['id', 'code', 'usage_count', 'once_per_customer'])
    .executeTakeFirst();
}

/** The discount's code (null: automatic), or undefined when it no longer exists. */
export async function discountCode(db: Executor, storeId: string, id: string) {
  const row = await db
    .selectFrom('discounts')
    .select('code')
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && { code: row.code };
}

export function insertRedemption(
  db: Executor,
  row: { id: string; store_id: string; discount_id: string; customer_id: string | null; order_id: string },
) {
  return db
    .insertInto('discount_redemptions')
    .values({ ...row, created_at: new Date() })
    .returning(['id', 'created_at'])
    .executeTakeFirstOrThrow();
}
