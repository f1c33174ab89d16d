import { type Kysely, sql } from 'kysely';

/** Webhooks, their deliveries (one per event and webhook) and the log of every attempt. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhooks (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      url text NOT NULL,
      events text[] NOT NULL,
      description text,
      active boolean NOT NULL DEFAULT true,
      secret_sealed text NOT NULL,
      last_success_at timestamptz,
      consecutive_failures integer NOT NULL DEFAULT 0,
      failing_since timestamptz,
      disabled_reason text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX webhooks_store_idx ON webhooks (store_id, created_at DESC, id DESC)`.execute(db);

  await sql`
    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      event_id uuid,
      event_type text NOT NULL,
      payload text NOT NULL,
      is_test boolean NOT NULL DEFAULT false,
      status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      locked_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`.execute(
    db,
  );
  await sql`CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC)`.execute(
    db,
  );
  await sql`CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at)`.execute(db);

  await sql`
    CREATE TABLE webhook_attempts (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
      event_type text NOT NULL,
      attempt integer NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      request_body text NOT NULL,
      status_code integer,
      response_body text,
      error text,
      duration_ms integer NOT NULL,
      next_retry_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX webhook_attempts_webhook_idx ON webhook_attempts (webhook_id, created_at DESC, id DESC)`.execute(
    db,
  );
  await sql`CREATE INDEX webhook_attempts_created_idx ON webhook_attempts (created_at)`.execute(db);
  await sql`CREATE INDEX events_created_idx ON events (created_at) WHERE dispatched_at IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS events_created_idx`.execute(db);
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhooks']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
