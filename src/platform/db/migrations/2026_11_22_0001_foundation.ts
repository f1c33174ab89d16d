import { type Kysely, sql } from 'kysely';

/** Stores, admin users, API keys, customers and the event outbox. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE stores (
      id uuid PRIMARY KEY,
      slug text NOT NULL,
      name text NOT NULL,
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
      currency char(3) NOT NULL DEFAULT 'USD',
      timezone text NOT NULL DEFAULT 'UTC',
      logo text,
      colors jsonb NOT NULL DEFAULT '{}',
      low_stock_threshold integer NOT NULL DEFAULT 5 CHECK (low_stock_threshold >= 0),
      shipping_flat_rate bigint NOT NULL DEFAULT 0 CHECK (shipping_flat_rate >= 0),
      free_shipping_threshold bigint CHECK (free_shipping_threshold >= 0),
      tax_rate_bps integer NOT NULL DEFAULT 0 CHECK (tax_rate_bps BETWEEN 0 AND 10000),
      app_config jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT stores_slug_key UNIQUE (slug)
    )`.execute(db);

  await sql`
    CREATE TABLE admin_users (
      id uuid PRIMARY KEY,
      email text NOT NULL,
      password_hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_login_at timestamptz
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX admin_users_email_key ON admin_users (lower(email))`.execute(db);

  await sql`
    CREATE TABLE admin_user_stores (
      admin_user_id uuid NOT NULL REFERENCES admin_users (id) ON DELETE CASCADE,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      role text NOT NULL DEFAULT 'owner',
      PRIMARY KEY (store_id, admin_user_id)
    )`.execute(db);

  await sql`
    CREATE TABLE api_keys (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      name text NOT NULL,
      key_prefix text NOT NULL,
      key_hash bytea NOT NULL,
      scopes text[] NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz,
      revoked_at timestamptz,
      CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)
    )`.execute(db);
  await sql`CREATE INDEX api_keys_store_idx ON api_keys (store_id, id DESC)`.execute(db);

  await sql`
    CREATE TABLE customers (
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      email text NOT NULL,
      first_name text,
      last_name text,
      phone text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX customers_store_email_key ON customers (store_id, lower(email))`.execute(db);
  await sql`CREATE INDEX customers_store_created_idx ON customers (store_id, created_at DESC, id DESC)`.execute(
    db,
  );

  await sql`
    CREATE TABLE events (
      seq bigint GENERATED ALWAYS AS IDENTITY,
      id uuid PRIMARY KEY,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      name text NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      dispatched_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX events_undispatched_idx ON events (seq) WHERE dispatched_at IS NULL`.execute(db);
  await sql`CREATE INDEX events_store_idx ON events (store_id, seq)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['events', 'customers', 'api_keys', 'admin_user_stores', 'admin_users', 'stores']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
