import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { TaxRegionsTable } from './regions.tables.js';

export type TaxRegionRow = Selectable<TaxRegionsTable>;

/** The unique index of a tax region's place: (store, country, region or ''). */
export const PLACE_KEY = 'tax_regions_place_key';

function filtered(db: Executor, storeId: string, filter: { country?: string }) {
  let query = db.selectFrom('tax_regions').where('store_id', '=', storeId);
  if (filter.country) query = query.where('country', '=', filter.country);
  return query;
}

/** Newest first (contract §2). */
export async function listTaxRegions(
  db: Executor,
  storeId: string,
  filter: { country?: string },
  page: { offset: number; limit: number },
): Promise<{ rows: TaxRegionRow[]; total: number }> {
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
  return { rows, total: Number(count.total) };
}

export async function findTaxRegion(db: Executor, storeId: string, id: string) {
  return db
    .selectFrom('tax_regions')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The row, locked until the transaction ends: concurrent edits of one region take turns. */
export async function lockTaxRegion(db: Executor, storeId: string, id: string) {
  return db
    .selectFrom('tax_regions')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export async function insertTaxRegion(db: Executor, row: Insertable<TaxRegionsTable>): Promise<TaxRegionRow> {
  return db.insertInto('tax_regions').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateTaxRegion(
  db: Executor,
  storeId: string,
  id: string,
  values: Updateable<TaxRegionsTable>,
): Promise<TaxRegionRow | undefined> {
  return db
    .updateTable('tax_regions')
    .set(values)
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteTaxRegion(db: Executor, storeId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('tax_regions')
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
