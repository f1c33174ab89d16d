import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { DevicePlatform } from './mobile.tables.js';

export interface DeviceInput {
  id: string;
  store_id: string;
  customer_id: string;
  token: string;
  platform: DevicePlatform;
  app_version: string | null;
  device_name: string | null;
}

/**
 * One row per (store, token): registering a known token moves it to this customer and refreshes it.
 * `created` tells a new registration (201) from a repeated one (200).
 */
export async function upsertDevice(db: Executor, row: DeviceInput) {
  const result = await sql<{ id: string; created: boolean; created_at: Date; updated_at: Date }>`
    INSERT INTO customer_devices (id, store_id, customer_id, token, platform, app_version, device_name)
    VALUES (${row.id}, ${row.store_id}, ${row.customer_id}, ${row.token}, ${row.platform}, ${row.app_version},
      ${row.device_name})
    ON CONFLICT (store_id, token) DO UPDATE SET customer_id = EXCLUDED.customer_id,
      platform = EXCLUDED.platform, app_version = EXCLUDED.app_version, device_name = EXCLUDED.device_name,
      updated_at = now()
    RETURNING id, (xmax = 0) AS created, created_at, updated_at`.execute(db);
  const device = result.rows[0];
  if (!device) throw new Error('device upsert returned no row');
  return device;
}

export function preferencesOf(db: Executor, storeId: string, customerId: string) {
  return db
    .selectFrom('notification_preferences')
    .select(['order_updates', 'promotions', 'back_in_stock'])
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

export function savePreferences(
  db: Executor,
  row: {
    store_id: string;
    customer_id: string;
    order_updates: boolean;
    promotions: boolean;
    back_in_stock: boolean;
  },
) {
  return db
    .insertInto('notification_preferences')
    .values({ ...row, updated_at: new Date() })
    .onConflict((oc) =>
      oc.column('customer_id').doUpdateSet({
        order_updates: row.order_updates,
        promotions: row.promotions,
        back_in_stock: row.back_in_stock,
        updated_at: new Date(),
      }),
    )
    .returning(['order_updates', 'promotions', 'back_in_stock'])
    .executeTakeFirstOrThrow();
}
