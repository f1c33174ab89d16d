import { type Kysely, sql } from 'kysely';

/** Stored responses of POSTs made with an Idempotency-Key, kept 24 hours. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE idempotency_keys (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      key text NOT NULL,
      request_hash text NOT NULL,
      status_code integer,
      response_body text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, key)
    )`.execute(db);
  await sql`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS idempotency_keys`.execute(db);
}
