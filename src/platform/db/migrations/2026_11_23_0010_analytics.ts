import { type Kysely, sql } from 'kysely';

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

  await sql`
    CREATE FUNCTION analytics_orders_changed() RETURNS trigger
    LANGUAGE plpgsql AS $fn$
    DECLARE
      v analytics_order_version[];
    BEGIN
      IF analytics_paused() THEN RETURN NULL; END IF;
      IF TG_OP = 'INSERT' THEN
        PERFORM pg_advisory_xact_lock_shared(analytics_lock_key(store_id, 'write'))
          FROM (SELECT DISTINCT store_id FROM new_rows ORDER BY 1) stores_written;
        -- Stores being deleted (cascades) are skipped throughout: their rollups go with them.
        WITH o AS (
          SELECT n.store_id, n.customer_id, n.status, n.amount_paid, n.discount_amount,
            (n.created_at AT TIME ZONE s.timezone)::date AS day
          FROM new_rows n JOIN stores s ON s.id = n.store_id
        ), buyers AS (
          INSERT INTO analytics_pending_customers (store_id, customer_id)
          SELECT DISTINCT store_id, customer_id FROM o WHERE customer_id IS NOT NULL AND status <> 'cancelled'
        )
        INSERT INTO analytics_pending_days
          (store_id, day, revenue, discounts, pending, processing, on_hold, completed, cancelled)
        SELECT store_id, day,
          coalesce(sum(amount_paid) FILTER (WHERE status <> 'cancelled'), 0),
          coalesce(sum(discount_amount) FILTER (WHERE status <> 'cancelled'), 0),
          count(*) FILTER (WHERE status = 'pending'),
          count(*) FILTER (WHERE status = 'processing'),
          count(*) FILTER (WHERE status = 'on_hold'),
          count(*) FILTER (WHERE status = 'completed'),
          count(*) FILTER (WHERE status = 'cancelled')
        FROM o
        GROUP BY 1, 2;
        RETURN NULL;
      END IF;

      SELECT array_agg(x) INTO v FROM (
        SELECT unnest(ARRAY[
          ROW(-1, o.id, o.store_id, o.customer_id, o.status, o.amount_paid, o.discount_amount,
            o.created_at, m.moved, m.moved OR m.buyer)::analytics_order_version,
          ROW(1, n.id, n.store_id, n.customer_id, n.status, n.amount_paid, n.discount_amount,
            n.created_at, m.moved, m.moved OR m.buyer)::analytics_order_version]) AS x
        FROM old_rows o
        JOIN new_rows n ON n.id = o.id
        CROSS JOIN LATERAL (SELECT
          (o.status = 'cancelled') <> (n.status = 'cancelled') OR o.created_at <> n.created_at
            OR o.store_id <> n.store_id AS moved,
          o.customer_id IS DISTINCT FROM n.customer_id AS buyer) m
        WHERE (o.status, o.amount_paid, o.discount_amount, o.created_at, o.store_id, o.customer_id)
          IS DISTINCT FROM (n.status, n.amount_paid, n.discount_amount, n.created_at, n.store_id, n.customer_id)
      ) z;
      IF v IS NULL THEN RETURN NULL; END IF;
      PERFORM pg_advisory_xact_lock_shared(analytics_lock_key(store_id, 'write'))
        FROM (SELECT DISTINCT x.store_id FROM unnest(v) x ORDER BY 1) stores_written;
      WITH x AS (
        SELECT u.*, (u.created_at AT TIME ZONE s.timezone)::date AS day
        FROM unnest(v) u JOIN stores s ON s.id = u.store_id
      ), buyers AS (
        INSERT INTO analytics_pending_customers (store_id, customer_id)
        SELECT DISTINCT store_id, customer_id FROM x WHERE reach AND customer_id IS NOT NULL
      ), lines AS (
        INSERT INTO analytics_pending_products (store_id, day, product_id, quantity, revenue)
        SELECT x.store_id, x.day, li.product_id, sum(x.sign * li.quantity), sum(x.sign * li.quantity * li.price)
        FROM x JOIN order_line_items li ON li.order_id = x.id
        WHERE x.lines_move AND x.status <> 'cancelled'
        GROUP BY 1, 2, 3
      )
      INSERT INTO analytics_pending_days
        (store_id, day, revenue, discounts, pending, processing, on_hold, completed, cancelled)
      SELECT store_id, day,
        sum(CASE WHEN status <> 'cancelled' THEN sign * amount_paid ELSE 0 END),
        sum(CASE WHEN status <> 'cancelled' THEN sign * discount_amount ELSE 0 END),
        sum(CASE WHEN status = 'pending' THEN sign ELSE 0 END),
        sum(CASE WHEN status = 'processing' THEN sign ELSE 0 END),
        sum(CASE WHEN status = 'on_hold' THEN sign ELSE 0 END),
        sum(CASE WHEN status = 'completed' THEN sign ELSE 0 END),
        sum(CASE WHEN status = 'cancelled' THEN sign ELSE 0 END)
      FROM x
      GROUP BY 1, 2;
      RETURN NULL;
    END
    $fn$`.execute(db);
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
  await sql`
    CREATE FUNCTION analytics_lines_changed() RETURNS trigger
    LANGUAGE plpgsql AS $fn$
    DECLARE
      v analytics_line_version[];
    BEGIN
      IF analytics_paused() THEN RETURN NULL; END IF;
      IF TG_OP = 'INSERT' THEN
        PERFORM pg_advisory_xact_lock_shared(analytics_lock_key(store_id, 'write'))
          FROM (SELECT DISTINCT o.store_id FROM new_rows n JOIN orders o ON o.id = n.order_id ORDER BY 1) stores_written;
        INSERT INTO analytics_pending_products
          (store_id, day, product_id, quantity, revenue, name, seen_at, seen_position)
        SELECT o.store_id, (o.created_at AT TIME ZONE s.timezone)::date, n.product_id,
          coalesce(sum(n.quantity) FILTER (WHERE o.status <> 'cancelled'), 0),
          coalesce(sum(n.quantity * n.price) FILTER (WHERE o.status <> 'cancelled'), 0),
          (array_agg(n.name ORDER BY o.created_at DESC, n.position DESC))[1],
          max(o.created_at),
          (array_agg(n.position ORDER BY o.created_at DESC, n.position DESC))[1]
        FROM new_rows n
        JOIN orders o ON o.id = n.order_id
        JOIN stores s ON s.id = o.store_id
        GROUP BY 1, 2, 3;
        RETURN NULL;
      ELSIF TG_OP = 'UPDATE' THEN
        SELECT array_agg(x) INTO v FROM (
          SELECT unnest(ARRAY[
            ROW(-1, o.order_id, o.product_id, o.quantity, o.price, o.name, o.position)::analytics_line_version,
            ROW(1, n.order_id, n.product_id, n.quantity, n.price, n.name, n.position)::analytics_line_version]) AS x
          FROM old_rows o JOIN new_rows n ON n.id = o.id
          WHERE (o.order_id, o.product_id, o.quantity, o.price, o.name, o.position)
            IS DISTINCT FROM (n.order_id, n.product_id, n.quantity, n.price, n.name, n.position)
        ) z;
      ELSE
        SELECT array_agg(ROW(-1, o.order_id, o.product_id, o.quantity, o.price, o.name, o.position)::analytics_line_version)
          INTO v FROM old_rows o;
      END IF;
      IF v IS NULL THEN RETURN NULL; END IF;
      PERFORM pg_advisory_xact_lock_shared(analytics_lock_key(store_id, 'write'))
        FROM (SELECT DISTINCT o.store_id FROM unnest(v) x JOIN orders o ON o.id = x.order_id ORDER BY 1) stores_written;
      INSERT INTO analytics_pending_products
        (store_id, day, product_id, quantity, revenue, name, seen_at, seen_position)
      SELECT o.store_id, (o.created_at AT TIME ZONE s.timezone)::date, x.product_id,
        coalesce(sum(x.sign * x.quantity) FILTER (WHERE o.status <> 'cancelled'), 0),
        coalesce(sum(x.sign * x.quantity * x.price) FILTER (WHERE o.status <> 'cancelled'), 0),
        (array_agg(x.name ORDER BY o.created_at DESC, x.position DESC) FILTER (WHERE x.sign = 1))[1],
        max(o.created_at) FILTER (WHERE x.sign = 1),
        (array_agg(x.position ORDER BY o.created_at DESC, x.position DESC) FILTER (WHERE x.sign = 1))[1]
      FROM unnest(v) x
      JOIN orders o ON o.id = x.order_id
      JOIN stores s ON s.id = o.store_id
      GROUP BY 1, 2, 3;
      RETURN NULL;
    END
    $fn$`.execute(db);
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
  await sql`
    CREATE FUNCTION analytics_refresh_customers(p_store uuid, ids uuid[]) RETURNS void
    LANGUAGE plpgsql AS $fn$
    DECLARE
      tz text;
    BEGIN
      SELECT timezone INTO tz FROM stores WHERE id = p_store;
      IF tz IS NULL OR ids IS NULL THEN RETURN; END IF;
      INSERT INTO analytics_customers (store_id, customer_id)
      SELECT p_store, c FROM unnest(ids) c
      ON CONFLICT (store_id, customer_id) DO NOTHING;

      WITH affected AS (
        SELECT DISTINCT c AS customer_id FROM unnest(ids) c
      ), active AS (
        SELECT DISTINCT o.customer_id, (o.created_at AT TIME ZONE tz)::date AS day
        FROM orders o
        WHERE o.store_id = p_store AND o.customer_id = ANY (ids) AND o.status <> 'cancelled'
      ), target AS (
        SELECT customer_id, day, lag(day) OVER (PARTITION BY customer_id ORDER BY day) AS prev_day FROM active
      ), removed AS (
        DELETE FROM analytics_customer_days cd
        WHERE cd.store_id = p_store AND cd.customer_id IN (SELECT customer_id FROM affected)
          AND NOT EXISTS (SELECT 1 FROM active t WHERE t.customer_id = cd.customer_id AND t.day = cd.day)
      ), upserted AS (
        INSERT INTO analytics_customer_days AS cd (store_id, customer_id, day, prev_day, gap_bucket)
        SELECT p_store, customer_id, day, prev_day, analytics_gap_bucket(day - prev_day) FROM target
        ON CONFLICT (store_id, customer_id, day) DO UPDATE
          SET prev_day = EXCLUDED.prev_day, gap_bucket = EXCLUDED.gap_bucket
          WHERE cd.prev_day IS DISTINCT FROM EXCLUDED.prev_day
      ), bounds AS (
        SELECT a.customer_id, c.first_day AS old_first, c.last_day AS old_last,
          t.first_day AS new_first, t.last_day AS new_last
        FROM affected a
        LEFT JOIN analytics_customers c ON c.store_id = p_store AND c.customer_id = a.customer_id
        LEFT JOIN (SELECT customer_id, min(day) AS first_day, max(day) AS last_day FROM active GROUP BY 1) t
          ON t.customer_id = a.customer_id
        WHERE (c.first_day, c.last_day) IS DISTINCT FROM (t.first_day, t.last_day)
      ), changed AS (
        INSERT INTO analytics_customers AS c (store_id, customer_id, first_day, last_day)
        SELECT p_store, customer_id, new_first, new_last FROM bounds
        ON CONFLICT (store_id, customer_id) DO UPDATE
          SET first_day = EXCLUDED.first_day, last_day = EXCLUDED.last_day
      )
      INSERT INTO analytics_customer_bounds AS cb (store_id, day, firsts, lasts)
      SELECT p_store, day, sum(firsts), sum(lasts)
      FROM (
        SELECT old_first AS day, -1 AS firsts, 0 AS lasts FROM bounds WHERE old_first IS NOT NULL
        UNION ALL SELECT new_first, 1, 0 FROM bounds WHERE new_first IS NOT NULL
        UNION ALL SELECT old_last, 0, -1 FROM bounds WHERE old_last IS NOT NULL
        UNION ALL SELECT new_last, 0, 1 FROM bounds WHERE new_last IS NOT NULL
      ) z
      GROUP BY day
      HAVING sum(firsts) <> 0 OR sum(lasts) <> 0
      ON CONFLICT (store_id, day) DO UPDATE
        SET firsts = cb.firsts + EXCLUDED.firsts, lasts = cb.lasts + EXCLUDED.lasts;
    END
    $fn$`.execute(db);

  /** Moves a store's journals into its rollups; one fold per store at a time. */
  await sql`
    CREATE FUNCTION analytics_fold(p_store uuid) RETURNS void
    LANGUAGE plpgsql AS $fn$
    DECLARE
      ids uuid[];
    BEGIN
      PERFORM pg_advisory_xact_lock(analytics_lock_key(p_store, 'fold'));

      WITH days AS (
        DELETE FROM analytics_pending_days WHERE store_id = p_store RETURNING *
      ), lines AS (
        DELETE FROM analytics_pending_products WHERE store_id = p_store RETURNING *
      ), sales AS (
        INSERT INTO analytics_product_sales AS p (store_id, grain, period, product_id, quantity, revenue)
        SELECT p_store, g.grain, date_trunc(g.grain, l.day::timestamp)::date, l.product_id,
          sum(l.quantity), sum(l.revenue)
        FROM lines l CROSS JOIN (VALUES ('day'), ('week'), ('month')) g (grain)
        WHERE l.product_id IS NOT NULL
        GROUP BY 2, 3, 4
        HAVING sum(l.quantity) <> 0 OR sum(l.revenue) <> 0
        ON CONFLICT (store_id, grain, period, product_id) DO UPDATE
          SET quantity = p.quantity + EXCLUDED.quantity, revenue = p.revenue + EXCLUDED.revenue
      ), names AS (
        INSERT INTO analytics_product_names AS n (store_id, product_id, name, seen_at, seen_position)
        SELECT DISTINCT ON (product_id) p_store, product_id, name, seen_at, seen_position
        FROM lines WHERE product_id IS NOT NULL AND name IS NOT NULL
        ORDER BY product_id, seen_at DESC, seen_position DESC
        ON CONFLICT (store_id, product_id) DO UPDATE
          SET name = EXCLUDED.name, seen_at = EXCLUDED.seen_at, seen_position = EXCLUDED.seen_position
          WHERE (EXCLUDED.seen_at, EXCLUDED.seen_position) >= (n.seen_at, n.seen_position)
      )
      INSERT INTO analytics_daily AS a
        (store_id, day, revenue, discounts, items_sold, pending, processing, on_hold, completed, cancelled)
      SELECT p_store, day, sum(revenue), sum(discounts), sum(items_sold), sum(pending), sum(processing),
        sum(on_hold), sum(completed), sum(cancelled)
      FROM (
        SELECT day, revenue, discounts, 0 AS items_sold, pending, processing, on_hold, completed, cancelled
        FROM days
        UNION ALL
        SELECT day, 0, 0, quantity, 0, 0, 0, 0, 0 FROM lines
      ) z
      GROUP BY day
      ON CONFLICT (store_id, day) DO UPDATE SET
        revenue = a.revenue + EXCLUDED.revenue,
        discounts = a.discounts + EXCLUDED.discounts,
        items_sold = a.items_sold + EXCLUDED.items_sold,
        pending = a.pending + EXCLUDED.pending,
        processing = a.processing + EXCLUDED.processing,
        on_hold = a.on_hold + EXCLUDED.on_hold,
        completed = a.completed + EXCLUDED.completed,
        cancelled = a.cancelled + EXCLUDED.cancelled;

      WITH taken AS (DELETE FROM analytics_pending_customers WHERE store_id = p_store RETURNING customer_id)
      SELECT array_agg(DISTINCT customer_id) INTO ids FROM taken;
      IF ids IS NOT NULL THEN PERFORM analytics_refresh_customers(p_store, ids); END IF;
    END
    $fn$`.execute(db);

  /** Recomputes one store's rollups from its orders, with its writers and folds held off. */
  await sql`
    CREATE FUNCTION analytics_rebuild(p_store uuid) RETURNS void
    LANGUAGE plpgsql AS $fn$
    DECLARE
      tz text;
    BEGIN
      PERFORM pg_advisory_xact_lock(analytics_lock_key(p_store, 'fold'));
      PERFORM pg_advisory_xact_lock(analytics_lock_key(p_store, 'write'));
      DELETE FROM analytics_pending_days WHERE store_id = p_store;
      DELETE FROM analytics_pending_products WHERE store_id = p_store;
      DELETE FROM analytics_pending_customers WHERE store_id = p_store;
      DELETE FROM analytics_daily WHERE store_id = p_store;
      DELETE FROM analytics_product_sales WHERE store_id = p_store;
      DELETE FROM analytics_product_names WHERE store_id = p_store;
      DELETE FROM analytics_customer_days WHERE store_id = p_store;
      DELETE FROM analytics_customer_bounds WHERE store_id = p_store;
      DELETE FROM analytics_customers WHERE store_id = p_store;
      SELECT timezone INTO tz FROM stores WHERE id = p_store;
      IF tz IS NULL THEN RETURN; END IF;

      INSERT INTO analytics_daily
        (store_id, day, revenue, discounts, items_sold, pending, processing, on_hold, completed, cancelled)
      SELECT p_store, day,
        coalesce(sum(amount_paid) FILTER (WHERE status <> 'cancelled'), 0),
        coalesce(sum(discount_amount) FILTER (WHERE status <> 'cancelled'), 0),
        coalesce(sum(items) FILTER (WHERE status <> 'cancelled'), 0),
        count(*) FILTER (WHERE status = 'pending'),
        count(*) FILTER (WHERE status = 'processing'),
        count(*) FILTER (WHERE status = 'on_hold'),
        count(*) FILTER (WHERE status = 'completed'),
        count(*) FILTER (WHERE status = 'cancelled')
      FROM (
        SELECT (o.created_at AT TIME ZONE tz)::date AS day, o.status, o.amount_paid, o.discount_amount,
          coalesce(li.quantity, 0) AS items
        FROM orders o
        LEFT JOIN (SELECT order_id, sum(quantity) AS quantity FROM order_line_items
          WHERE store_id = p_store GROUP BY order_id) li ON li.order_id = o.id
        WHERE o.store_id = p_store
      ) z
      GROUP BY day;

      INSERT INTO analytics_product_sales (store_id, grain, period, product_id, quantity, revenue)
      WITH by_day AS (
        SELECT (o.created_at AT TIME ZONE tz)::date AS day, li.product_id,
          sum(li.quantity) AS quantity, sum(li.quantity * li.price) AS revenue
        FROM order_line_items li JOIN orders o ON o.id = li.order_id
        WHERE li.store_id = p_store AND o.store_id = p_store AND o.status <> 'cancelled'
          AND li.product_id IS NOT NULL
        GROUP BY 1, 2
      )
      SELECT p_store, 'day', day, product_id, quantity, revenue FROM by_day
      UNION ALL
      SELECT p_store, g.grain, date_trunc(g.grain, day::timestamp)::date, product_id, sum(quantity), sum(revenue)
      FROM by_day CROSS JOIN (VALUES ('week'), ('month')) g (grain)
      GROUP BY 2, 3, 4;

      INSERT INTO analytics_product_names (store_id, product_id, name, seen_at, seen_position)
      SELECT DISTINCT ON (li.product_id) p_store, li.product_id, li.name, o.created_at, li.position
      FROM order_line_items li JOIN orders o ON o.id = li.order_id
      WHERE li.store_id = p_store AND o.store_id = p_store AND li.product_id IS NOT NULL
      ORDER BY li.product_id, o.created_at DESC, li.position DESC;

      PERFORM analytics_refresh_customers(p_store, (SELECT coalesce(array_agg(DISTINCT customer_id), '{}')
        FROM orders WHERE store_id = p_store AND customer_id IS NOT NULL));
    END
    $fn$`.execute(db);

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
