import { type Kysely, sql } from 'kysely';
import {
  ANALYTICS_FOLD,
  ANALYTICS_LINES_CHANGED,
  ANALYTICS_ORDERS_CHANGED,
  ANALYTICS_REBUILD,
  ANALYTICS_REFRESH_CUSTOMERS,
} from './2026_11_23_0010_analytics.sql.js';

/**
 * Analytics rollups of orders, keyed by the local date of `created_at` in the store's timezone.
 *
 * Writing: statement-level triggers on orders and order_line_items append the figures each statement
 * adds or removes to three pending journals (whatever wrote the orders: placeOrder, mark-paid,
 * cancel, edit-items, PATCH, a bulk seed, a manual UPDATE). They only insert: an order transaction
 * never locks a shared rollup row, so the triggers add no lock waits or deadlocks to checkout.
 * Reading: analytics_fold(store) moves the journals into the rollups (one at a time per store) and
 * the report then reads a few hundred rollup rows instead of a million orders.
 *
 * - analytics_daily: per store and day, the figures of the orders created that day: paid money,
 *   discounts and items of the orders not cancelled, and the number of orders in each status.
 * - analytics_product_sales: per store, product and day, and again per ISO week and per month, the
 *   quantity and revenue (price × quantity) of the lines of orders not cancelled (a year is read as
 *   11 months, a few weeks and a few days); analytics_product_names: the name on the product's line
 *   of its most recent order.
 * - analytics_customer_days: for each customer, the days on which they have an order that is not
 *   cancelled, each with the previous such day (so a period's returning customers are counted from
 *   the gaps that straddle it, not from every order); analytics_customers: each customer's first and
 *   last such day; analytics_customer_bounds: per day, how many customers have it as their first and
 *   as their last day (new customers; customers active on both sides of a date).
 *
 * analytics_rebuild(store) recomputes a store from its orders: the migration runs it for existing
 * stores and a timezone change runs it in the same transaction. Order writers hold the store's
 * analytics lock in shared mode from their first trigger to commit; a rebuild takes it exclusively,
 * so it sees every committed change once and writers wait for it. `SET LOCAL
 * emporium.analytics_paused = 'on'` lets a bulk loader skip the triggers and rebuild once at the end.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE analytics_daily (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      day date NOT NULL,
      revenue bigint NOT NULL DEFAULT 0,
      discounts bigint NOT NULL DEFAULT 0,
      items_sold bigint NOT NULL DEFAULT 0,
      pending integer NOT NULL DEFAULT 0,
      processing integer NOT NULL DEFAULT 0,
      on_hold integer NOT NULL DEFAULT 0,
      completed integer NOT NULL DEFAULT 0,
      cancelled integer NOT NULL DEFAULT 0,
      PRIMARY KEY (store_id, day)
    )`.execute(db);

  await sql`
    CREATE TABLE analytics_product_sales (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      grain text NOT NULL CHECK (grain IN ('day', 'week', 'month')),
      period date NOT NULL,
      product_id uuid NOT NULL,
      quantity bigint NOT NULL DEFAULT 0,
      revenue bigint NOT NULL DEFAULT 0,
      -- Covering: a range of periods is read by an index-only scan.
      PRIMARY KEY (store_id, grain, period, product_id) INCLUDE (quantity, revenue)
    )`.execute(db);

  await sql`
    CREATE TABLE analytics_product_names (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      product_id uuid NOT NULL,
      name text NOT NULL,
      -- The line the name comes from: its order's created_at and its position.
      seen_at timestamptz NOT NULL,
      seen_position integer NOT NULL,
      PRIMARY KEY (store_id, product_id)
    )`.execute(db);

  await sql`
    CREATE TABLE analytics_customers (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      customer_id uuid NOT NULL,
      first_day date,
      last_day date,
      PRIMARY KEY (store_id, customer_id)
    )`.execute(db);

  await sql`
    CREATE TABLE analytics_customer_days (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      customer_id uuid NOT NULL,
      day date NOT NULL,
      prev_day date,
      gap_bucket smallint,
      PRIMARY KEY (store_id, customer_id, day)
    )`.execute(db);
  // Short periods: the customer days inside the period whose previous day is before it.
  await sql`CREATE INDEX analytics_customer_days_day_idx ON analytics_customer_days (store_id, day) INCLUDE (prev_day)`.execute(
    db,
  );
  // Long periods: gaps of 2^k to 2^(k+1) − 1 days that straddle the period, one short range per k.
  await sql`
    CREATE INDEX analytics_customer_days_gap_idx ON analytics_customer_days (store_id, gap_bucket, prev_day)
      INCLUDE (day) WHERE prev_day IS NOT NULL`.execute(db);

  await sql`
    CREATE TABLE analytics_customer_bounds (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      day date NOT NULL,
      firsts integer NOT NULL DEFAULT 0,
      lasts integer NOT NULL DEFAULT 0,
      PRIMARY KEY (store_id, day)
    )`.execute(db);

  // The journals: appended by the triggers, emptied by analytics_fold.
  await sql`
    CREATE TABLE analytics_pending_days (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      day date NOT NULL,
      revenue bigint NOT NULL,
      discounts bigint NOT NULL,
      pending integer NOT NULL,
      processing integer NOT NULL,
      on_hold integer NOT NULL,
      completed integer NOT NULL,
      cancelled integer NOT NULL
    )`.execute(db);
  await sql`
    CREATE TABLE analytics_pending_products (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      day date NOT NULL,
      -- Null for a line without a product: it counts in items sold only.
      product_id uuid,
      quantity bigint NOT NULL,
      revenue bigint NOT NULL,
      name text,
      seen_at timestamptz,
      seen_position integer
    )`.execute(db);
  await sql`
    CREATE TABLE analytics_pending_customers (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      customer_id uuid NOT NULL
    )`.execute(db);
  for (const table of [
    'analytics_pending_days',
    'analytics_pending_products',
    'analytics_pending_customers',
  ]) {
    await sql`CREATE INDEX ${sql.raw(`${table}_store_idx`)} ON ${sql.table(table)} (store_id)`.execute(db);
  }

  // floor(log2(gap)) for a gap of at least one day, exactly (no floating point); 16 for 2^16 and more.
  await sql`
    CREATE FUNCTION analytics_gap_bucket(gap integer) RETURNS smallint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
      SELECT (width_bucket(gap, '{1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536}'::integer[]) - 1)::smallint
    $fn$`.execute(db);

  // Advisory lock keys of a store: writers (shared) against a rebuild (exclusive); one fold at a time.
  await sql`
    CREATE FUNCTION analytics_lock_key(store_id uuid, purpose text) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
      SELECT hashtextextended('emporium.analytics.' || purpose || ':' || store_id::text, 0)
    $fn$`.execute(db);

  await sql`
    CREATE FUNCTION analytics_paused() RETURNS boolean
    LANGUAGE sql STABLE AS $fn$ SELECT coalesce(current_setting('emporium.analytics_paused', true), '') = 'on' $fn$`.execute(
    db,
  );

  /*
   * Orders. A new order adds its figures to its day (its lines follow in their own statement). A
   * changed order is seen as two versions: −1 for the one that no longer counts, +1 for the one
   * that does. `lines_move`: its lines enter or leave the counted figures (cancelled or restored,
   * or moved to another day); `reach`: its buyer's active days may change.
   */
  await sql`
    CREATE TYPE analytics_order_version AS (
      sign integer, id uuid, store_id uuid, customer_id uuid, status text, amount_paid bigint,
      discount_amount bigint, created_at timestamptz, lines_move boolean, reach boolean
    )`.execute(db);

  await sql.raw(ANALYTICS_ORDERS_CHANGED).execute(db);
  await sql`
    CREATE TRIGGER analytics_orders_inserted AFTER INSERT ON orders
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION analytics_orders_changed()`.execute(db);
  await sql`
    CREATE TRIGGER analytics_orders_updated AFTER UPDATE ON orders
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION analytics_orders_changed()`.execute(db);

  await sql`
    CREATE TYPE analytics_line_version AS (
      sign integer, order_id uuid, product_id uuid, quantity integer, price bigint, name text, position integer
    )`.execute(db);

  /*
   * Lines (checkout, edit-items): their quantities and revenue count while their order is not
   * cancelled (items sold includes lines without a product); the name of every line added is kept
   * for its product. Lines deleted together with their order or store are skipped.
   */
  await sql.raw(ANALYTICS_LINES_CHANGED).execute(db);
  for (const [name, event, referencing] of [
    ['analytics_lines_inserted', 'INSERT', 'NEW TABLE AS new_rows'],
    ['analytics_lines_updated', 'UPDATE', 'OLD TABLE AS old_rows NEW TABLE AS new_rows'],
    ['analytics_lines_deleted', 'DELETE', 'OLD TABLE AS old_rows'],
  ] as const) {
    await sql`
      CREATE TRIGGER ${sql.raw(name)} AFTER ${sql.raw(event)} ON order_line_items
      REFERENCING ${sql.raw(referencing)}
      FOR EACH STATEMENT EXECUTE FUNCTION analytics_lines_changed()`.execute(db);
  }

  /*
   * Recomputes the active days of some customers of a store from their orders, and moves the
   * first-day and last-day counts with them. Only analytics_fold and analytics_rebuild call it,
   * under the store's fold lock.
   */
  await sql.raw(ANALYTICS_REFRESH_CUSTOMERS).execute(db);

  /** Moves a store's journals into its rollups; one fold per store at a time. */
  await sql.raw(ANALYTICS_FOLD).execute(db);

  /** Recomputes one store's rollups from its orders, with its writers and folds held off. */
  await sql.raw(ANALYTICS_REBUILD).execute(db);

  await sql`
    CREATE FUNCTION analytics_store_timezone_changed() RETURNS trigger
    LANGUAGE plpgsql AS $fn$
    BEGIN
      PERFORM analytics_rebuild(NEW.id);
      RETURN NULL;
    END
    $fn$`.execute(db);
  await sql`
    CREATE TRIGGER analytics_store_timezone AFTER UPDATE OF timezone ON stores
    FOR EACH ROW WHEN (OLD.timezone IS DISTINCT FROM NEW.timezone)
    EXECUTE FUNCTION analytics_store_timezone_changed()`.execute(db);

  // Orders placed before this migration.
  await sql`SELECT analytics_rebuild(id) FROM stores`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS analytics_store_timezone ON stores`.execute(db);
  for (const trigger of ['analytics_lines_inserted', 'analytics_lines_updated', 'analytics_lines_deleted']) {
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(trigger)} ON order_line_items`.execute(db);
  }
  await sql`DROP TRIGGER IF EXISTS analytics_orders_inserted ON orders`.execute(db);
  await sql`DROP TRIGGER IF EXISTS analytics_orders_updated ON orders`.execute(db);
  for (const fn of [
    'analytics_store_timezone_changed()',
    'analytics_rebuild(uuid)',
    'analytics_fold(uuid)',
    'analytics_refresh_customers(uuid, uuid[])',
    'analytics_lines_changed()',
    'analytics_orders_changed()',
    'analytics_paused()',
    'analytics_lock_key(uuid, text)',
    'analytics_gap_bucket(integer)',
  ]) {
    await sql`DROP FUNCTION IF EXISTS ${sql.raw(fn)}`.execute(db);
  }
  await sql`DROP TYPE IF EXISTS analytics_line_version`.execute(db);
  await sql`DROP TYPE IF EXISTS analytics_order_version`.execute(db);
  for (const table of [
    'analytics_pending_customers',
    'analytics_pending_products',
    'analytics_pending_days',
    'analytics_customer_bounds',
    'analytics_customer_days',
    'analytics_customers',
    'analytics_product_names',
    'analytics_product_sales',
    'analytics_daily',
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
