import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { compiled, sqlText } from '../../platform/db/sql-text.js';
import { insertBackInStockPushes, PUSH_CHANNEL } from '../mobile/index.js';
import { NOTIFICATIONS_CHANNEL } from './notifications.queue.js';

/**
 * A sign-up, once: a repeat of the same e-mail (any case) for the same product or variant, however
 * concurrent, meets `back_in_stock_subscriptions_once_idx` and writes nothing. True when it was new.
 */
export async function insertSubscription(
  db: Executor,
  row: {
    id: string;
    storeId: string;
    productId: string;
    variantId: string | null;
    email: string;
    customerId: string | null;
  },
): Promise<boolean> {
  const result = await sql`
    INSERT INTO back_in_stock_subscriptions (id, store_id, product_id, variant_id, email, customer_id)
    VALUES (${row.id}, ${row.storeId}, ${row.productId}, ${row.variantId}, ${row.email}, ${row.customerId})
    ON CONFLICT DO NOTHING`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/**
 * Ends the sign-ups the restocked products and variants answer, in one statement inside the stock
 * change's transaction: each is deleted, its `back_in_stock` e-mail queued (unless the store turned
 * the kind off; `dedupe_key` `back_in_stock:<sign-up id>`), and a push queued for each device of a
 * signed-in subscriber (mobile's rules). A sign-up for a variant answers that variant only; one
 * without a variant answers the product and any of its variants. The workers are woken at commit,
 * each only if something was queued for it.
 */
export async function endSubscriptions(
  db: Executor,
  storeId: string,
  restocked: { productId: string; variantId: string | null }[],
): Promise<{ ended: number }> {
  const statement = sqlText`
    WITH restocked AS (
      SELECT * FROM unnest(${restocked.map((r) => r.productId)}::uuid[], ${restocked.map((r) => r.variantId)}::uuid[])
        AS r(product_id, variant_id)
    ), ended AS (
      DELETE FROM back_in_stock_subscriptions s
      USING restocked r, products p
      WHERE s.store_id = ${storeId}::uuid AND s.product_id = r.product_id
        AND (s.variant_id IS NULL OR s.variant_id = r.variant_id)
        AND p.store_id = s.store_id AND p.id = s.product_id
      RETURNING s.id, s.store_id, s.product_id, s.variant_id, s.email, s.customer_id,
        p.name AS product_name, p.slug AS product_slug,
        (SELECT v.title FROM product_variants v WHERE v.store_id = s.store_id AND v.id = s.variant_id) AS variant_title
    ), mailed AS (
      INSERT INTO notifications (id, store_id, kind, to_email, refs, dedupe_key)
      SELECT emporium_uuid_v7(), e.store_id, 'back_in_stock', e.email,
        jsonb_build_object('product_id', e.product_id, 'variant_id', e.variant_id, 'customer_id', e.customer_id,
          'subscription_email', e.email),
        'back_in_stock:' || e.id
      FROM ended e
      WHERE NOT EXISTS (
        SELECT 1 FROM notification_templates t
        WHERE t.store_id = e.store_id AND t.kind = 'back_in_stock' AND NOT t.enabled
      )
      ON CONFLICT (store_id, dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING
      RETURNING 1
    ), pushed AS (${insertBackInStockPushes('ended')})
    SELECT (SELECT count(*) FROM ended)::int AS ended,
      (SELECT pg_notify(${NOTIFICATIONS_CHANNEL}, '') FROM mailed LIMIT 1) AS mail_woken,
      (SELECT pg_notify(${PUSH_CHANNEL}, '') FROM pushed LIMIT 1) AS push_woken`;
  const result = await db.executeQuery(compiled<{ ended: number }>(statement));
  return { ended: result.rows[0]?.ended ?? 0 };
}
