/** Anything that runs a text query: a pg.Client of a process test, or a test app's pool. */
export interface Queryable {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * The days whose analytics_daily row differs from a recount of that local day's orders (revenue,
 * orders not cancelled, cancelled), in the store's current timezone: none when the rollups are
 * exact.
 */
export async function rollupMismatches(db: Queryable, storeId: string): Promise<unknown[]> {
  const { rows } = await db.query(
    `WITH recount AS (
       SELECT (o.created_at AT TIME ZONE s.timezone)::date AS day,
         coalesce(sum(o.amount_paid) FILTER (WHERE o.status <> 'cancelled'), 0) AS revenue,
         count(*) FILTER (WHERE o.status <> 'cancelled') AS orders,
         count(*) FILTER (WHERE o.status = 'cancelled') AS cancelled
       FROM orders o JOIN stores s ON s.id = o.store_id
       WHERE o.store_id = $1 GROUP BY 1
     ), rollup AS (
       SELECT day, revenue, pending + processing + on_hold + completed AS orders, cancelled
       FROM analytics_daily WHERE store_id = $1
     )
     SELECT * FROM recount FULL JOIN rollup USING (day)
     WHERE (recount.revenue, recount.orders, recount.cancelled)
       IS DISTINCT FROM (rollup.revenue, rollup.orders, rollup.cancelled)`,
    [storeId],
  );
  return rows;
}
