import { type Kysely, sql } from 'kysely';

/**
 * analytics_rebuild(store) reads all of one store's orders and lines, and is planned from
 * statistics that may not know the store yet: autovacuum analyses a table only after a tenth of it
 * changed, so a store that grew since the last ANALYZE is estimated at about one row. From that
 * estimate PostgreSQL joined lines to orders (and orders to lines per order) by nested loops that
 * rescan the whole store for each row: minutes for 20,000 orders, in the PATCH of a timezone change
 * (issue 29). Without nested loops the same statements hash or merge their inputs: time in
 * proportion to the store, whatever the estimates, and a few milliseconds more for a small store.
 * The setting holds while the function runs (analytics_refresh_customers called from it included)
 * and nowhere else; analytics_fold and the triggers keep their plans.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER FUNCTION analytics_rebuild(uuid) SET enable_nestloop = off`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER FUNCTION analytics_rebuild(uuid) RESET enable_nestloop`.execute(db);
}
