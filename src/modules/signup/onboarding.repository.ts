import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';

/**
 * The checklist's facts in one read: each a primary-key or (store_id, …) index probe. It reads the
 * catalogue's, regions' and payments' tables directly, read-only, as the analytics rollups do:
 * asking three services would be three round trips on every dashboard start.
 */
export function onboardingFacts(db: Executor, storeId: string) {
  return db
    .selectFrom('stores as s')
    .where('s.id', '=', storeId)
    .select((eb) => [
      eb
        .exists(eb.selectFrom('products').select(sql`1`.as('x')).where('store_id', '=', storeId))
        .as('has_product'),
      eb
        .exists(eb.selectFrom('shipping_zones').select(sql`1`.as('x')).where('store_id', '=', storeId))
        .as('has_zone'),
      eb
        .exists(
          eb
            .selectFrom('stripe_accounts')
            .select(sql`1`.as('x'))
            .where('store_id', '=', storeId)
            .where('enabled', '=', true),
        )
        .as('has_payments'),
      sql<string | null>`s.onboarding->>'shop_viewed_at'`.as('shop_viewed_at'),
    ])
    .executeTakeFirst();
}

/** Marks the shop viewed (first time only: later views keep the first date). */
export async function markShopViewed(db: Executor, storeId: string) {
  await db
    .updateTable('stores')
    .set({
      onboarding: sql`onboarding || jsonb_build_object('shop_viewed_at', coalesce(onboarding->>'shop_viewed_at', ${new Date().toISOString()}))`,
    })
    .where('id', '=', storeId)
    .execute();
}
