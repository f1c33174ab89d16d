import { type Kysely, sql } from 'kysely';
import {
  ANALYTICS_FOLD,
  ANALYTICS_ORDERS_CHANGED,
  ANALYTICS_REBUILD,
} from './2026_11_23_0010_analytics.sql.js';
import {
  ANALYTICS_FOLD_V2,
  ANALYTICS_ORDERS_CHANGED_V2,
  ANALYTICS_REBUILD_V2,
} from './2026_11_28_0040_analytics_shipping_tax.sql.js';

/**
 * Contract §12, analytics: shipping and tax collected, and tax by region, kept by the same journals
 * and rollups as the other figures (see 2026_11_23_0010_analytics), so a report still reads rollup
 * rows, never all orders.
 *
 * - analytics_daily (and its journal) gain `shipping` and `tax`: the shipping_amount and tax_amount
 *   of the orders created that day that are not cancelled, exactly as `revenue` and `discounts`.
 * - analytics_tax_regions: per store, place and day (and again per ISO week and month, like the
 *   product sales, so a year reads a few rows per place), the sum of `amount` of the tax lines of
 *   those orders (orders.tax_lines) and how many lines there were (a place with lines whose amounts
 *   sum to 0 is still reported; one whose lines all left, e.g. by a cancellation, is not). The place
 *   is (country, region) with '' for null: a country-wide rate has region ''.
 * - The order trigger journals the new figures, and sees an order as changed when its shipping, tax
 *   or tax lines change (an edit recomputes them); fold and rebuild carry them through.
 *
 * Existing orders are counted by a rebuild of every store, as the first analytics migration did.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['analytics_daily', 'analytics_pending_days']) {
    await sql`
      ALTER TABLE ${sql.table(table)}
        ADD COLUMN shipping bigint NOT NULL DEFAULT 0,
        ADD COLUMN tax bigint NOT NULL DEFAULT 0`.execute(db);
  }
  await sql`
    CREATE TABLE analytics_tax_regions (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      grain text NOT NULL CHECK (grain IN ('day', 'week', 'month')),
      period date NOT NULL,
      country text NOT NULL,
      region text NOT NULL,
      amount bigint NOT NULL DEFAULT 0,
      lines bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (store_id, grain, period, country, region) INCLUDE (amount, lines)
    )`.execute(db);
  await sql`
    CREATE TABLE analytics_pending_taxes (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      day date NOT NULL,
      country text NOT NULL,
      region text NOT NULL,
      amount bigint NOT NULL,
      lines bigint NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX analytics_pending_taxes_store_idx ON analytics_pending_taxes (store_id)`.execute(db);

  // The places and amounts of an order's tax lines. Whatever a line holds, the trigger never fails
  // an order's write: a value that is not an array is no lines, an amount that is not a number none.
  await sql`
    CREATE FUNCTION analytics_tax_places(tax_lines jsonb)
    RETURNS TABLE (country text, region text, amount bigint)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
      SELECT coalesce(l ->> 'country', ''), coalesce(l ->> 'region', ''),
        CASE WHEN jsonb_typeof(l -> 'amount') = 'number' THEN round((l ->> 'amount')::numeric)::bigint ELSE 0 END
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(tax_lines) = 'array' THEN tax_lines ELSE '[]' END) l
      WHERE jsonb_typeof(l) = 'object'
    $fn$`.execute(db);

  await sql`
    ALTER TYPE analytics_order_version
      ADD ATTRIBUTE shipping_amount bigint,
      ADD ATTRIBUTE tax_amount bigint,
      ADD ATTRIBUTE tax_lines jsonb`.execute(db);
  await sql.raw(ANALYTICS_ORDERS_CHANGED_V2).execute(db);
  await sql.raw(ANALYTICS_FOLD_V2).execute(db);
  await sql.raw(ANALYTICS_REBUILD_V2).execute(db);

  // Orders placed before this migration.
  await sql`SELECT analytics_rebuild(id) FROM stores`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // The functions as 0010 created them (and 0030 tuned the rebuild), before the columns they no
  // longer read go.
  for (const fn of ['analytics_rebuild(uuid)', 'analytics_fold(uuid)']) {
    await sql`DROP FUNCTION ${sql.raw(fn)}`.execute(db);
  }
  await sql
    .raw(ANALYTICS_ORDERS_CHANGED.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION'))
    .execute(db);
  await sql.raw(ANALYTICS_FOLD).execute(db);
  await sql.raw(ANALYTICS_REBUILD).execute(db);
  await sql`ALTER FUNCTION analytics_rebuild(uuid) SET enable_nestloop = off`.execute(db);
  await sql`
    ALTER TYPE analytics_order_version
      DROP ATTRIBUTE tax_lines, DROP ATTRIBUTE tax_amount, DROP ATTRIBUTE shipping_amount`.execute(db);
  await sql`DROP FUNCTION analytics_tax_places(jsonb)`.execute(db);
  await sql`DROP TABLE analytics_pending_taxes`.execute(db);
  await sql`DROP TABLE analytics_tax_regions`.execute(db);
  for (const table of ['analytics_daily', 'analytics_pending_days']) {
    await sql`ALTER TABLE ${sql.table(table)} DROP COLUMN shipping, DROP COLUMN tax`.execute(db);
  }
}
