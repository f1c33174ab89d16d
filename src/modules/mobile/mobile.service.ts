import type { Db } from '../../platform/db/database.js';
import { newId } from '../../platform/ids.js';
import * as repo from './mobile.repository.js';
import type { DevicePlatform } from './mobile.tables.js';

export interface Preferences {
  orderUpdates: boolean;
  promotions: boolean;
  backInStock: boolean;
}

const DEFAULTS: Preferences = { orderUpdates: true, promotions: true, backInStock: true };

/** Devices for push notifications and the notification preferences of signed-in customers. */
export function createMobileService(db: Db) {
  async function preferences(storeId: string, customerId: string): Promise<Preferences> {
    const row = await repo.preferencesOf(db, storeId, customerId);
    return row
      ? { orderUpdates: row.order_updates, promotions: row.promotions, backInStock: row.back_in_stock }
      : { ...DEFAULTS };
  }

  return {
    registerDevice(
      storeId: string,
      customerId: string,
      input: {
        token: string;
        platform: DevicePlatform;
        appVersion?: string | null;
        deviceName?: string | null;
      },
    ) {
      return repo.upsertDevice(db, {
        id: newId(),
        store_id: storeId,
        customer_id: customerId,
        token: input.token,
        platform: input.platform,
        app_version: input.appVersion ?? null,
        device_name: input.deviceName ?? null,
      });
    },

    preferences,

    /** Fields left out keep their value. */
    async updatePreferences(storeId: string, customerId: string, patch: Partial<Preferences>) {
      const next = { ...(await preferences(storeId, customerId)), ...patch };
      const row = await repo.savePreferences(db, {
        store_id: storeId,
        customer_id: customerId,
        order_updates: next.orderUpdates,
        promotions: next.promotions,
        back_in_stock: next.backInStock,
      });
      return { orderUpdates: row.order_updates, promotions: row.promotions, backInStock: row.back_in_stock };
    },
  };
}

export type MobileService = ReturnType<typeof createMobileService>;
