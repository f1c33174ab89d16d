import { type Kysely, sql } from 'kysely';

/** Customer log-in (one-time codes, sessions), wishlists, mobile devices, preferences, push queue. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE customer_login_codes (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      email text NOT NULL,
      code_hash bytea NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      expires_at timestamptz NOT NULL,
      consumed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX customer_login_codes_email_idx ON customer_login_codes (store_id, email, created_at DESC)`.execute(
    db,
  );

  await sql`
    CREATE TABLE customer_sessions (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      customer_id uuid NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      token_hash bytea NOT NULL,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT customer_sessions_token_key UNIQUE (token_hash)
    )`.execute(db);
  await sql`CREATE INDEX customer_sessions_customer_idx ON customer_sessions (customer_id)`.execute(db);

  await sql`
    CREATE TABLE wishlist_items (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      customer_id uuid NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (customer_id, product_id)
    )`.execute(db);

  await sql`
    CREATE TABLE customer_devices (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      customer_id uuid NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      token text NOT NULL,
      platform text NOT NULL CHECK (platform IN ('ios', 'android', 'web')),
      app_version text,
      device_name text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT customer_devices_token_key UNIQUE (store_id, token)
    )`.execute(db);
  await sql`CREATE INDEX customer_devices_customer_idx ON customer_devices (store_id, customer_id)`.execute(
    db,
  );

  await sql`
    CREATE TABLE notification_preferences (
      customer_id uuid PRIMARY KEY REFERENCES customers (id) ON DELETE CASCADE,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      order_updates boolean NOT NULL DEFAULT true,
      promotions boolean NOT NULL DEFAULT true,
      back_in_stock boolean NOT NULL DEFAULT true,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  await sql`
    CREATE TABLE push_notifications (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      customer_id uuid NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
      device_id uuid NOT NULL REFERENCES customer_devices (id) ON DELETE CASCADE,
      title text NOT NULL,
      body text NOT NULL,
      data jsonb NOT NULL DEFAULT '{}',
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      locked_until timestamptz,
      error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX push_notifications_due_idx ON push_notifications (next_attempt_at) WHERE status = 'pending'`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'push_notifications',
    'notification_preferences',
    'customer_devices',
    'wishlist_items',
    'customer_sessions',
    'customer_login_codes',
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
