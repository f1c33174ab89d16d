import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { ShippingRatesTable, ShippingZonesTable } from './regions.tables.js';

export type ZoneRow = Selectable<ShippingZonesTable>;
export type RateRow = Selectable<ShippingRatesTable>;
export type ZoneWithParts = ZoneRow & { countries: string[]; rates: RateRow[] };

/** Each zone's countries (in the order given) and rates (by position), one query per table. */
async function withParts(db: Executor, storeId: string, zones: ZoneRow[]): Promise<ZoneWithParts[]> {
  if (zones.length === 0) return [];
  const ids = zones.map((z) => z.id);
  const [countries, rates] = await Promise.all([
    db
      .selectFrom('shipping_zone_countries')
      .select(['zone_id', 'country'])
      .where('store_id', '=', storeId)
      .where('zone_id', 'in', ids)
      .orderBy('zone_id')
      .orderBy('position')
      .orderBy('country')
      .execute(),
    db
      .selectFrom('shipping_rates')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('zone_id', 'in', ids)
      .orderBy('zone_id')
      .orderBy('position')
      .orderBy('id')
      .execute(),
  ]);
  const byId = new Map<string, ZoneWithParts>(zones.map((z) => [z.id, { ...z, countries: [], rates: [] }]));
  for (const c of countries) byId.get(c.zone_id)?.countries.push(c.country);
  for (const r of rates) byId.get(r.zone_id)?.rates.push(r);
  return zones.map((z) => byId.get(z.id) as ZoneWithParts);
}

/** Newest first (contract §2). A store has few zones: every country stands in at most one. */
export async function listZones(
  db: Executor,
  storeId: string,
  page: { offset: number; limit: number },
): Promise<{ rows: ZoneWithParts[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('shipping_zones')
      .selectAll()
      .where('store_id', '=', storeId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('shipping_zones')
      .where('store_id', '=', storeId)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: await withParts(db, storeId, rows), total: Number(count.total) };
}

export async function findZone(
  db: Executor,
  storeId: string,
  id: string,
): Promise<ZoneWithParts | undefined> {
  const zone = await db
    .selectFrom('shipping_zones')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  return zone && (await withParts(db, storeId, [zone]))[0];
}

export async function insertZone(db: Executor, row: Insertable<ShippingZonesTable>): Promise<void> {
  await db.insertInto('shipping_zones').values(row).execute();
}

/** The zone's row, locked until the transaction ends: concurrent edits of one zone take turns. */
export async function lockZone(db: Executor, storeId: string, id: string) {
  return db
    .selectFrom('shipping_zones')
    .select(['id', 'updated_at'])
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export async function updateZone(
  db: Executor,
  storeId: string,
  id: string,
  values: { name?: string; updated_at: Date },
): Promise<void> {
  await db
    .updateTable('shipping_zones')
    .set(values)
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .execute();
}

/** Deletes the zone with its countries and rates (the foreign keys cascade); false when none. */
export async function deleteZone(db: Executor, storeId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('shipping_zones')
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Gives the zone exactly these countries and answers those it could claim. A country another zone
 * of the store holds stays that zone's: the primary key (store, country) decides, so of two
 * transactions claiming one country at once the second waits for the first and, once it commits,
 * claims nothing (ON CONFLICT DO NOTHING) — the caller then answers 409 naming it. The rows go in
 * code order so that two claims of overlapping lists lock them in one order and never deadlock;
 * `position` keeps the order given.
 */
export async function claimCountries(
  db: Executor,
  storeId: string,
  zoneId: string,
  countries: string[],
): Promise<Set<string>> {
  await db
    .deleteFrom('shipping_zone_countries')
    .where('store_id', '=', storeId)
    .where('zone_id', '=', zoneId)
    .execute();
  const rows = countries
    .map((country, position) => ({ store_id: storeId, zone_id: zoneId, country, position }))
    .sort((a, b) => (a.country < b.country ? -1 : a.country > b.country ? 1 : 0));
  const claimed = await db
    .insertInto('shipping_zone_countries')
    .values(rows)
    .onConflict((oc) => oc.columns(['store_id', 'country']).doNothing())
    .returning('country')
    .execute();
  return new Set(claimed.map((c) => c.country));
}

/** Which zone (by name) holds each of these countries of the store. */
export async function holdersOf(db: Executor, storeId: string, countries: string[]) {
  return db
    .selectFrom('shipping_zone_countries as c')
    .innerJoin('shipping_zones as z', (join) =>
      join.onRef('z.store_id', '=', 'c.store_id').onRef('z.id', '=', 'c.zone_id'),
    )
    .select(['c.country', 'z.name'])
    .where('c.store_id', '=', storeId)
    .where('c.country', 'in', countries)
    .execute();
}

/** The zone's rates as stored (ids and creation times, which a replaced list keeps). */
export async function zoneRates(db: Executor, storeId: string, zoneId: string) {
  return db
    .selectFrom('shipping_rates')
    .select(['id', 'created_at'])
    .where('store_id', '=', storeId)
    .where('zone_id', '=', zoneId)
    .execute();
}

/**
 * Replaces the zone's rates with these rows (which carry the ids kept): nothing references a rate
 * by key (a cart or an order keeps its id as a plain value), so a delete and one insert will do.
 */
export async function replaceRates(
  db: Executor,
  storeId: string,
  zoneId: string,
  rows: Insertable<ShippingRatesTable>[],
): Promise<void> {
  await db
    .deleteFrom('shipping_rates')
    .where('store_id', '=', storeId)
    .where('zone_id', '=', zoneId)
    .execute();
  if (rows.length > 0) await db.insertInto('shipping_rates').values(rows).execute();
}
