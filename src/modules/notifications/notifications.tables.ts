import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';
import type { NotificationKind } from './kinds.js';

type Maybe<T> = ColumnType<T | null, T | null | undefined, T | null>;
type Defaulted<T> = ColumnType<T, T | undefined, T>;

export type NotificationStatus = 'pending' | 'sent' | 'failed';

/**
 * What a message is about, beyond its order: the worker loads these when it renders it. Ids only
 * (the records are read at send time), plus what a record does not keep (a low-stock crossing's
 * threshold and quantity).
 */
export interface NotificationRefs {
  fulfillment_id?: string;
  refund_id?: string;
  product_id?: string;
  variant_id?: string | null;
  subscription_email?: string;
  customer_id?: string | null;
  threshold?: number;
  quantity?: number;
}

/** The queue the worker claims from and the log merchants read (contract §13). */
export interface NotificationsTable {
  id: string;
  store_id: string;
  kind: NotificationKind;
  to_email: string;
  order_id: Maybe<string>;
  refs: ColumnType<NotificationRefs, string | undefined, string>;
  /** One message per cause: "order_confirmation:<order id>", "shipping_confirmation:<fulfillment id>"… */
  dedupe_key: Maybe<string>;
  /** A resend names the message it repeats. */
  resend_of: Maybe<string>;
  /** Sent by `POST …/templates/{kind}/test`: rendered with the preview's data. */
  test: Defaulted<boolean>;
  /** Set when the worker renders the message (null while it waits for its first attempt). */
  subject: Maybe<string>;
  status: Defaulted<NotificationStatus>;
  attempts: Defaulted<number>;
  last_error: Maybe<string>;
  next_attempt_at: Timestamp;
  locked_until: Maybe<Date>;
  created_at: Timestamp;
  sent_at: Maybe<Date>;
}

/** A store's customised template of a kind; no row: the default, enabled. Null parts: the default's. */
export interface NotificationTemplatesTable {
  store_id: string;
  kind: NotificationKind;
  enabled: Defaulted<boolean>;
  subject: Maybe<string>;
  html: Maybe<string>;
  text: Maybe<string>;
  updated_at: Timestamp;
}

export interface BackInStockSubscriptionsTable {
  id: string;
  store_id: string;
  product_id: string;
  /** null: any variant of the product (or a product without variants). */
  variant_id: Maybe<string>;
  email: string;
  /** The signed-in shopper who subscribed: their devices get a push too (preference `backInStock`). */
  customer_id: Maybe<string>;
  created_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    notifications: NotificationsTable;
    notification_templates: NotificationTemplatesTable;
    back_in_stock_subscriptions: BackInStockSubscriptionsTable;
  }
}
