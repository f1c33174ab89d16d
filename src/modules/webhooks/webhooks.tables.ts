import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
type Maybe<T> = ColumnType<T | null, T | null | undefined, T | null>;

export interface WebhooksTable {
  id: string;
  store_id: string;
  url: string;
  events: string[];
  description: Maybe<string>;
  active: ColumnType<boolean, boolean | undefined, boolean>;
  /** The signing secret, sealed with APP_SECRET (platform/secret-box). */
  secret_sealed: string;
  last_success_at: Maybe<Date>;
  consecutive_failures: ColumnType<number, number | undefined, number>;
  /** When the current run of failures began (null after a success). */
  failing_since: Maybe<Date>;
  disabled_reason: Maybe<string>;
  /** The latest test send (never counted in last_success_at): when, whether 2xx, the status code. */
  last_test_at: Maybe<Date>;
  last_test_succeeded: Maybe<boolean>;
  last_test_status_code: Maybe<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: string;
  store_id: string;
  webhook_id: string;
  event_id: string | null;
  event_type: string;
  /** The exact bytes posted on every attempt. */
  payload: string;
  is_test: ColumnType<boolean, boolean | undefined, boolean>;
  status: DeliveryStatus;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Maybe<Date>;
  locked_until: Maybe<Date>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookAttemptsTable {
  id: string;
  store_id: string;
  webhook_id: string;
  delivery_id: string;
  event_type: string;
  attempt: number;
  status: DeliveryStatus;
  request_body: string;
  status_code: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  next_retry_at: Date | null;
  created_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    webhooks: WebhooksTable;
    webhook_deliveries: WebhookDeliveriesTable;
    webhook_attempts: WebhookAttemptsTable;
  }
}
