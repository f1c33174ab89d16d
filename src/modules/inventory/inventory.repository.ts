import { sql } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';
import { prepared } from '../../platform/db/prepared.js';
import { asFragment, compiled, rawSql, type SqlText, sqlText } from '../../platform/db/sql-text.js';
import type { GatedWrites } from '../../platform/db/write-batch.js';

/**
 * The inventory module owns the stock columns (`products.inventory`, `product_variants.inventory`)
 * and their history. Every change is one conditional UPDATE: the row lock serialises concurrent
 * changes, and the condition refuses to take tracked stock below zero, so there is no lost update and
 * no oversell whatever the concurrency.
 */
export interface ProductLevel {
  product_id: string;
  name: string;
  sku: string | null;
  inventory: number;
  track_inventory: boolean;
  threshold: number;
}

export interface VariantLevel {
  variant_id: string;
  product_id: string;
  inventory: number;
}

/** The history row a stock change writes in the same statement as the change itself. */
export interface AdjustmentNote {
  id: string;
  reason: string | null;
  source: string;
}

/**
 * Moves a product's stock and, when `note` is given, writes its history row in the same statement
 * (one round trip instead of two: checkout runs this once per line). `tail`, a data-modifying
 * statement of another module that reads the CTE `moved` (so it runs only when the stock moved, and
 * after the product's row lock), joins the statement too; its RETURNING row comes back as `tail`.
 * `tail.after`, writes gated on `tail` (WriteBatch.gated), come after it in the same statement.
 */
export async function addToProduct(
  db: Executor,
  storeId: string,
  productId: string,
  delta: number,
  note?: AdjustmentNote,
  tail?: { query: SqlText; after?: GatedWrites },
): Promise<(ProductLevel & { tail?: unknown }) | undefined> {
  const none = rawSql('');
  const history = note
    ? sqlText`, logged AS (
        INSERT INTO inventory_adjustments (id, store_id, product_id, variant_id, previous, adjustment, inventory, reason, source)
        SELECT ${note.id}::uuid, ${storeId}::uuid, m.product_id, NULL, m.inventory - ${delta}::int, ${delta}::int,
          m.inventory, ${note.reason}::text, ${note.source}::text
        FROM moved m
      )`
    : none;
  // Text, not Kysely (sql-text.ts): checkout sends this statement with all of the order's writes.
  const statement = sqlText`
    WITH moved AS (
      UPDATE products p SET inventory = p.inventory + ${delta}, updated_at = now()
      WHERE p.store_id = ${storeId} AND p.id = ${productId}
        AND (NOT p.track_inventory OR p.inventory + ${delta} >= 0)
      RETURNING p.id AS product_id, p.name, p.sku, p.inventory, p.track_inventory,
        COALESCE(p.low_stock_threshold, (SELECT s.low_stock_threshold FROM stores s WHERE s.id = p.store_id)) AS threshold
    )${history}${tail ? sqlText`, tail AS (${asFragment(tail.query)})${tail.after?.ctes ?? none}` : none}
    SELECT moved.*${tail ? sqlText`, (SELECT row_to_json(tail) FROM tail) AS tail${tail.after?.columns ?? none}` : none}
    FROM moved`;
  // Named (prepared): checkout's statement, a dozen CTEs, is parsed and planned once per connection
  // and shape (lines of the order, events, pushes), not at every order. Its columns are listed.
  const result = await db.executeQuery(prepared(compiled<ProductLevel & { tail?: unknown }>(statement)));
  return result.rows[0];
}

/** Moves a variant's stock and writes its history row in the same statement. */
export async function addToVariant(
  db: Executor,
  storeId: string,
  variantId: string,
  delta: number,
  note: AdjustmentNote,
): Promise<VariantLevel | undefined> {
  const result = await sql<VariantLevel>`
    WITH moved AS (
      UPDATE product_variants v SET inventory = v.inventory + ${delta}, updated_at = now()
      FROM products p
      WHERE v.store_id = ${storeId} AND v.id = ${variantId} AND p.id = v.product_id
        AND (NOT p.track_inventory OR v.inventory + ${delta} >= 0)
      RETURNING v.id AS variant_id, v.product_id, v.inventory
    ), logged AS (
      INSERT INTO inventory_adjustments (id, store_id, product_id, variant_id, previous, adjustment, inventory, reason, source)
      SELECT ${note.id}::uuid, ${storeId}::uuid, m.product_id, m.variant_id, m.inventory - ${delta}::int, ${delta}::int,
        m.inventory, ${note.reason}::text, ${note.source}::text
      FROM moved m
    )
    SELECT * FROM moved`.execute(db);
  return result.rows[0];
}

/**
 * Locks the product of a variant. A variant change takes this lock before the variant's, in the
 * same order as a product edit (product, then its variants), so the two cannot deadlock.
 */
export async function lockProductOfVariant(db: Tx, storeId: string, variantId: string) {
  await sql`
    SELECT p.id FROM products p JOIN product_variants v ON v.product_id = p.id
    WHERE v.store_id = ${storeId} AND v.id = ${variantId}
    FOR UPDATE OF p`.execute(db);
}

export async function productLevel(db: Executor, storeId: string, productId: string) {
  const result = await sql<ProductLevel & { variant_count: number }>`
    SELECT p.id AS product_id, p.name, p.sku, p.inventory, p.track_inventory,
      COALESCE(p.low_stock_threshold, s.low_stock_threshold) AS threshold,
      (SELECT count(*)::int FROM product_variants v WHERE v.product_id = p.id) AS variant_count
    FROM products p JOIN stores s ON s.id = p.store_id
    WHERE p.store_id = ${storeId} AND p.id = ${productId}`.execute(db);
  return result.rows[0];
}

export function variantLevels(db: Executor, storeId: string, productId: string) {
  return db
    .selectFrom('product_variants')
    .select(['id', 'title', 'sku', 'inventory'])
    .where('store_id', '=', storeId)
    .where('product_id', '=', productId)
    .orderBy('position')
    .orderBy('id')
    .execute();
}

export function findVariant(db: Executor, storeId: string, variantId: string) {
  return db
    .selectFrom('product_variants')
    .select(['id', 'product_id', 'inventory', 'title'])
    .where('store_id', '=', storeId)
    .where('id', '=', variantId)
    .executeTakeFirst();
}

export function listAdjustments(db: Executor, storeId: string, productId: string, limit: number) {
  return db
    .selectFrom('inventory_adjustments')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('product_id', '=', productId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
