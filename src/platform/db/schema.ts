import type { ColumnType, Generated } from 'kysely';

/**
 * The Kysely database interface. Each module adds its own tables to it by declaration merging in its
 * `<domain>.tables.ts`, so the platform never imports a module.
 */
export interface Database {
  events: EventsTable;
  idempotency_keys: IdempotencyKeysTable;
}

export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** The transactional outbox: one row per domain event, written in the transaction of its cause. */
export interface EventsTable {
  id: string;
  store_id: string;
  name: string;
  data: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
  dispatched_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  seq: Generated<string>;
}

export interface IdempotencyKeysTable {
  store_id: string;
  key: string;
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  /** What the request created, recorded in its own transaction (platform/idempotency.ts). */
  resource_type: ColumnType<string | null, string | null | undefined, string | null>;
  resource_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}
