/**
 * The long PL/pgSQL functions of the analytics migration (2026_11_23_0010_analytics.ts, where each is
 * described where it is created), kept apart so that the migration reads as the list of what it
 * creates. Each constant is one statement exactly as the migration has always sent it, leading
 * newline and indentation included (test/unit/migrations-frozen.test.ts checks every byte): this is
 * history, never edit it; a change to a function is a new migration that replaces it.
 */

/** The trigger function of orders (both triggers on orders). */
export const ANALYTICS_ORDERS_CHANGED = `
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
    $fn$`;

/** The trigger function of order_line_items (its three triggers). */
export const ANALYTICS_LINES_CHANGED = `
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
    $fn$`;

/** Recomputes some customers' active days and first/last-day counts. */
export const ANALYTICS_REFRESH_CUSTOMERS = `
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
    $fn$`;

/** Moves a store's journals into its rollups. */
export const ANALYTICS_FOLD = `
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
    $fn$`;

/** Recomputes one store's rollups from its orders. */
export const ANALYTICS_REBUILD = `
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
    $fn$`;
