/**
 * The PL/pgSQL functions of migration 2026_11_28_0040_analytics_shipping_tax (described there), kept
 * apart so that the migration reads as the list of what it changes. They replace the functions of
 * 2026_11_23_0010_analytics.sql.ts with the same logic plus shipping, tax and the tax places. This is
 * history once shipped: a later change to a function is a new migration that replaces it.
 */

/** The trigger function of orders (both triggers on orders). */
export const ANALYTICS_ORDERS_CHANGED_V2 = `
    CREATE OR REPLACE FUNCTION analytics_orders_changed() RETURNS trigger
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
          SELECT n.store_id, n.customer_id, n.status, n.amount_paid, n.discount_amount, n.shipping_amount,
            n.tax_amount, n.tax_lines, (n.created_at AT TIME ZONE s.timezone)::date AS day
          FROM new_rows n JOIN stores s ON s.id = n.store_id
        ), buyers AS (
          INSERT INTO analytics_pending_customers (store_id, customer_id)
          SELECT DISTINCT store_id, customer_id FROM o WHERE customer_id IS NOT NULL AND status <> 'cancelled'
        ), taxes AS (
          INSERT INTO analytics_pending_taxes (store_id, day, country, region, amount, lines)
          SELECT o.store_id, o.day, p.country, p.region, sum(p.amount), count(*)
          FROM o CROSS JOIN LATERAL analytics_tax_places(o.tax_lines) p
          WHERE o.status <> 'cancelled'
          GROUP BY 1, 2, 3, 4
        )
        INSERT INTO analytics_pending_days
          (store_id, day, revenue, discounts, shipping, tax, pending, processing, on_hold, completed, cancelled)
        SELECT store_id, day,
          coalesce(sum(amount_paid) FILTER (WHERE status <> 'cancelled'), 0),
          coalesce(sum(discount_amount) FILTER (WHERE status <> 'cancelled'), 0),
          coalesce(sum(shipping_amount) FILTER (WHERE status <> 'cancelled'), 0),
          coalesce(sum(tax_amount) FILTER (WHERE status <> 'cancelled'), 0),
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
            o.created_at, m.moved, m.moved OR m.buyer, o.shipping_amount, o.tax_amount,
            o.tax_lines)::analytics_order_version,
          ROW(1, n.id, n.store_id, n.customer_id, n.status, n.amount_paid, n.discount_amount,
            n.created_at, m.moved, m.moved OR m.buyer, n.shipping_amount, n.tax_amount,
            n.tax_lines)::analytics_order_version]) AS x
        FROM old_rows o
        JOIN new_rows n ON n.id = o.id
        CROSS JOIN LATERAL (SELECT
          (o.status = 'cancelled') <> (n.status = 'cancelled') OR o.created_at <> n.created_at
            OR o.store_id <> n.store_id AS moved,
          o.customer_id IS DISTINCT FROM n.customer_id AS buyer) m
        WHERE (o.status, o.amount_paid, o.discount_amount, o.created_at, o.store_id, o.customer_id,
            o.shipping_amount, o.tax_amount, o.tax_lines)
          IS DISTINCT FROM (n.status, n.amount_paid, n.discount_amount, n.created_at, n.store_id,
            n.customer_id, n.shipping_amount, n.tax_amount, n.tax_lines)
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
      ), taxes AS (
        INSERT INTO analytics_pending_taxes (store_id, day, country, region, amount, lines)
        SELECT x.store_id, x.day, p.country, p.region, sum(x.sign * p.amount), sum(x.sign)
        FROM x CROSS JOIN LATERAL analytics_tax_places(x.tax_lines) p
        WHERE x.status <> 'cancelled'
        GROUP BY 1, 2, 3, 4
        HAVING sum(x.sign * p.amount) <> 0 OR sum(x.sign) <> 0
      )
      INSERT INTO analytics_pending_days
        (store_id, day, revenue, discounts, shipping, tax, pending, processing, on_hold, completed, cancelled)
      SELECT store_id, day,
        sum(CASE WHEN status <> 'cancelled' THEN sign * amount_paid ELSE 0 END),
        sum(CASE WHEN status <> 'cancelled' THEN sign * discount_amount ELSE 0 END),
        sum(CASE WHEN status <> 'cancelled' THEN sign * shipping_amount ELSE 0 END),
        sum(CASE WHEN status <> 'cancelled' THEN sign * tax_amount ELSE 0 END),
        sum(CASE WHEN status = 'pending' THEN sign ELSE 0 END),
        sum(CASE WHEN status = 'processing' THEN sign ELSE 0 END),
        sum(CASE WHEN status = 'on_hold' THEN sign ELSE 0 END),
        sum(CASE WHEN status = 'completed' THEN sign ELSE 0 END),
        sum(CASE WHEN status = 'cancelled' THEN sign ELSE 0 END)
      FROM x
      GROUP BY 1, 2;
      RETURN NULL;
    END
    $fn$`;

/** Moves a store's journals into its rollups. */
export const ANALYTICS_FOLD_V2 = `
    CREATE OR REPLACE FUNCTION analytics_fold(p_store uuid) RETURNS void
    LANGUAGE plpgsql AS $fn$
    DECLARE
      ids uuid[];
    BEGIN
      PERFORM pg_advisory_xact_lock(analytics_lock_key(p_store, 'fold'));

      WITH days AS (
        DELETE FROM analytics_pending_days WHERE store_id = p_store RETURNING *
      ), lines AS (
        DELETE FROM analytics_pending_products WHERE store_id = p_store RETURNING *
      ), taxes AS (
        DELETE FROM analytics_pending_taxes WHERE store_id = p_store RETURNING *
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
      ), places AS (
        INSERT INTO analytics_tax_regions AS t (store_id, grain, period, country, region, amount, lines)
        SELECT p_store, g.grain, date_trunc(g.grain, x.day::timestamp)::date, x.country, x.region,
          sum(x.amount), sum(x.lines)
        FROM taxes x CROSS JOIN (VALUES ('day'), ('week'), ('month')) g (grain)
        GROUP BY 2, 3, 4, 5
        HAVING sum(x.amount) <> 0 OR sum(x.lines) <> 0
        ON CONFLICT (store_id, grain, period, country, region) DO UPDATE
          SET amount = t.amount + EXCLUDED.amount, lines = t.lines + EXCLUDED.lines
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
        (store_id, day, revenue, discounts, shipping, tax, items_sold, pending, processing, on_hold,
          completed, cancelled)
      SELECT p_store, day, sum(revenue), sum(discounts), sum(shipping), sum(tax), sum(items_sold),
        sum(pending), sum(processing), sum(on_hold), sum(completed), sum(cancelled)
      FROM (
        SELECT day, revenue, discounts, shipping, tax, 0 AS items_sold, pending, processing, on_hold,
          completed, cancelled
        FROM days
        UNION ALL
        SELECT day, 0, 0, 0, 0, quantity, 0, 0, 0, 0, 0 FROM lines
      ) z
      GROUP BY day
      ON CONFLICT (store_id, day) DO UPDATE SET
        revenue = a.revenue + EXCLUDED.revenue,
        discounts = a.discounts + EXCLUDED.discounts,
        shipping = a.shipping + EXCLUDED.shipping,
        tax = a.tax + EXCLUDED.tax,
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
    $fn$`;

/**
 * Recomputes one store's rollups from its orders. Nested loops stay off inside it, as migration
 * 2026_11_28_0030_analytics_rebuild_joins set them (CREATE OR REPLACE resets a function's settings).
 */
export const ANALYTICS_REBUILD_V2 = `
    CREATE OR REPLACE FUNCTION analytics_rebuild(p_store uuid) RETURNS void
    LANGUAGE plpgsql SET enable_nestloop = off AS $fn$
    DECLARE
      tz text;
    BEGIN
      PERFORM pg_advisory_xact_lock(analytics_lock_key(p_store, 'fold'));
      PERFORM pg_advisory_xact_lock(analytics_lock_key(p_store, 'write'));
      DELETE FROM analytics_pending_days WHERE store_id = p_store;
      DELETE FROM analytics_pending_products WHERE store_id = p_store;
      DELETE FROM analytics_pending_taxes WHERE store_id = p_store;
      DELETE FROM analytics_pending_customers WHERE store_id = p_store;
      DELETE FROM analytics_daily WHERE store_id = p_store;
      DELETE FROM analytics_product_sales WHERE store_id = p_store;
      DELETE FROM analytics_tax_regions WHERE store_id = p_store;
      DELETE FROM analytics_product_names WHERE store_id = p_store;
      DELETE FROM analytics_customer_days WHERE store_id = p_store;
      DELETE FROM analytics_customer_bounds WHERE store_id = p_store;
      DELETE FROM analytics_customers WHERE store_id = p_store;
      SELECT timezone INTO tz FROM stores WHERE id = p_store;
      IF tz IS NULL THEN RETURN; END IF;

      INSERT INTO analytics_daily
        (store_id, day, revenue, discounts, shipping, tax, items_sold, pending, processing, on_hold,
          completed, cancelled)
      SELECT p_store, day,
        coalesce(sum(amount_paid) FILTER (WHERE status <> 'cancelled'), 0),
        coalesce(sum(discount_amount) FILTER (WHERE status <> 'cancelled'), 0),
        coalesce(sum(shipping_amount) FILTER (WHERE status <> 'cancelled'), 0),
        coalesce(sum(tax_amount) FILTER (WHERE status <> 'cancelled'), 0),
        coalesce(sum(items) FILTER (WHERE status <> 'cancelled'), 0),
        count(*) FILTER (WHERE status = 'pending'),
        count(*) FILTER (WHERE status = 'processing'),
        count(*) FILTER (WHERE status = 'on_hold'),
        count(*) FILTER (WHERE status = 'completed'),
        count(*) FILTER (WHERE status = 'cancelled')
      FROM (
        SELECT (o.created_at AT TIME ZONE tz)::date AS day, o.status, o.amount_paid, o.discount_amount,
          o.shipping_amount, o.tax_amount, coalesce(li.quantity, 0) AS items
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

      INSERT INTO analytics_tax_regions (store_id, grain, period, country, region, amount, lines)
      WITH by_day AS (
        SELECT (o.created_at AT TIME ZONE tz)::date AS day, p.country, p.region,
          sum(p.amount) AS amount, count(*) AS lines
        FROM orders o CROSS JOIN LATERAL analytics_tax_places(o.tax_lines) p
        WHERE o.store_id = p_store AND o.status <> 'cancelled'
        GROUP BY 1, 2, 3
      )
      SELECT p_store, 'day', day, country, region, amount, lines FROM by_day
      UNION ALL
      SELECT p_store, g.grain, date_trunc(g.grain, day::timestamp)::date, country, region, sum(amount), sum(lines)
      FROM by_day CROSS JOIN (VALUES ('week'), ('month')) g (grain)
      GROUP BY 2, 3, 4, 5;

      INSERT INTO analytics_product_names (store_id, product_id, name, seen_at, seen_position)
      SELECT DISTINCT ON (li.product_id) p_store, li.product_id, li.name, o.created_at, li.position
      FROM order_line_items li JOIN orders o ON o.id = li.order_id
      WHERE li.store_id = p_store AND o.store_id = p_store AND li.product_id IS NOT NULL
      ORDER BY li.product_id, o.created_at DESC, li.position DESC;

      PERFORM analytics_refresh_customers(p_store, (SELECT coalesce(array_agg(DISTINCT customer_id), '{}')
        FROM orders WHERE store_id = p_store AND customer_id IS NOT NULL));
    END
    $fn$`;
