import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

export type DevicePlatform = 'ios' | 'android' | 'web';
type Maybe<T> = ColumnType<T | null, T | null | undefined, T | null>;
type Defaulted<T> = ColumnType<T, T | undefined, T>;

export interface CustomerDevicesTable {
  id: string;
  store_id: string;
  customer_id: string;
  token: string;
  platform: DevicePlatform;
  app_version: Maybe<string>;
  device_name: Maybe<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface NotificationPreferencesTable {
  customer_id: string;
  store_id: string;
  order_updates: Defaulted<boolean>;
  promotions: Defaulted<boolean>;
  back_in_stock: Defaulted<boolean>;
  updated_at: Timestamp;
}

export type PushStatus = 'pending' | 'sent' | 'failed';

export interface PushNotificationsTable {
  id: string;
  store_id: string;
  customer_id: string;
  device_id: string;
  title: string;
  body: string;
  data: ColumnType<Record<string, string>, string | undefined, string>;
  status: Defaulted<PushStatus>;
  attempts: Defaulted<number>;
  next_attempt_at: Timestamp;
  locked_until: Maybe<Date>;
  error: Maybe<string>;
  created_at: Timestamp;
  sent_at: Maybe<Date>;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    customer_devices: CustomerDevicesTable;
    notification_preferences: NotificationPreferencesTable;
    push_notifications: PushNotificationsTable;
  }
}
