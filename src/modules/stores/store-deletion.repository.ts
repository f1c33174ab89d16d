import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';

/** The NOTIFY channel of a store marked for deletion: the worker's `store_deletion` job wakes at once. */
export const STORE_DELETION_CHANNEL = 'emporium_store_deletion';

/** Announces, at the commit of the caller's transaction, a store to delete. */
export async function announceDeletion(tx: Executor): Promise<void> {
  await sql`SELECT pg_notify(${STORE_DELETION_CHANNEL}, '')`.execute(tx);
}

/**
 * Claims the longest-waiting store marked for deletion whose lease is free (never taken, or its
 * worker died), leasing it for `leaseMs`: SKIP LOCKED, so two workers take different stores.
 */
export async function claimStoreToDelete(db: Executor, leaseMs: number) {
  const result = await sql<{ id: string; slug: string }>`
    UPDATE stores SET deletion_locked_until = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE id = (
      SELECT id FROM stores
      WHERE status = 'deleting' AND (deletion_locked_until IS NULL OR deletion_locked_until < now())
      ORDER BY deletion_requested_at
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    )
    RETURNING id, slug`.execute(db);
  return result.rows;
}

/** Keeps the lease while the work goes on; false when it was lost (another worker took over). */
export async function extendDeletionLease(db: Executor, storeId: string, leaseMs: number): Promise<boolean> {
  const result = await sql`
    UPDATE stores SET deletion_locked_until = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE id = ${storeId} AND status = 'deleting' AND deletion_locked_until > now()`.execute(db);
  return Number(result.numAffectedRows ?? 0) === 1;
}

/** Seconds until a store to delete can be claimed (a lease's end); null: none waits. */
export async function secondsUntilNextDeletion(db: Executor): Promise<number | null> {
  const result = await sql<{ seconds: number | null }>`
    SELECT EXTRACT(EPOCH FROM (min(COALESCE(deletion_locked_until, now())) - now()))::float8 AS seconds
    FROM stores WHERE status = 'deleting'`.execute(db);
  const seconds = result.rows[0]?.seconds;
  return seconds === null || seconds === undefined ? null : Number(seconds);
}

/** Every table with a `store_id` column (the schema's own list, so a new table is never forgotten). */
export async function tablesWithStoreId(db: Executor): Promise<string[]> {
  const result = await sql<{ table: string }>`
    SELECT c.relname AS table FROM pg_class c
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'store_id' AND NOT a.attisdropped
    WHERE c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace
      AND c.relname <> 'stores'
    ORDER BY c.relname`.execute(db);
  return result.rows.map((row) => row.table);
}

/** Foreign keys between tables of the schema: child → parent, and the child's columns. */
export async function foreignKeys(db: Executor) {
  const result = await sql<{ child: string; parent: string; columns: string[] }>`
    SELECT child.relname AS child, parent.relname AS parent,
      ARRAY(SELECT a.attname::text FROM unnest(k.conkey) AS n
        JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = n) AS columns
    FROM pg_constraint k
    JOIN pg_class child ON child.oid = k.conrelid
    JOIN pg_class parent ON parent.oid = k.confrelid
    WHERE k.contype = 'f' AND child.relnamespace = current_schema()::regnamespace`.execute(db);
  return result.rows;
}

/** Deletes at most `limit` of the store's rows of `table`; says how many. */
export async function deleteStoreRows(db: Executor, table: string, storeId: string, limit: number) {
  const result = await sql`
    DELETE FROM ${sql.table(table)} WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM ${sql.table(table)} WHERE store_id = ${storeId} LIMIT ${limit}))`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Clears a self-reference (a category's parent) of at most `limit` of the store's rows, so that
 * batches may delete a parent before its children.
 */
export async function clearSelfReference(
  db: Executor,
  table: string,
  column: string,
  storeId: string,
  limit: number,
) {
  const result = await sql`
    UPDATE ${sql.table(table)} SET ${sql.ref(column)} = NULL WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM ${sql.table(table)}
      WHERE store_id = ${storeId} AND ${sql.ref(column)} IS NOT NULL LIMIT ${limit}))`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** A batch of the store's media rows: their ids and URLs. */
export function storeMediaBatch(db: Executor, storeId: string, limit: number) {
  return db
    .selectFrom('product_media')
    .select(['id', 'url'])
    .where('store_id', '=', storeId)
    .limit(limit)
    .execute();
}

/** Which of these URLs another store's products still show (media objects are shared by content). */
export async function urlsUsedByOthers(db: Executor, storeId: string, urls: string[]): Promise<Set<string>> {
  if (urls.length === 0) return new Set();
  const rows = await db
    .selectFrom('product_media')
    .select('url')
    .distinct()
    .where('store_id', '<>', storeId)
    .where('url', 'in', urls)
    .execute();
  return new Set(rows.map((row) => row.url));
}

export async function deleteMediaRows(db: Executor, storeId: string, ids: string[]) {
  if (ids.length === 0) return;
  await db.deleteFrom('product_media').where('store_id', '=', storeId).where('id', 'in', ids).execute();
}

/** The store's row, last (its other rows are gone by then): true when it was still there. */
export async function deleteStoreRow(db: Executor, storeId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('stores')
    .where('id', '=', storeId)
    .where('status', '=', 'deleting')
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** A worker that stops on purpose hands its store back at once. */
export async function releaseDeletionLease(db: Executor, storeId: string): Promise<void> {
  await db
    .updateTable('stores')
    .set({ deletion_locked_until: null })
    .where('id', '=', storeId)
    .where('status', '=', 'deleting')
    .execute();
}
