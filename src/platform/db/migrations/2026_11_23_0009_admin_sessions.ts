import { type Kysely, sql } from 'kysely';

/** Sessions of the merchant dashboard (cookie `emporium_admin`), one store each. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE admin_sessions (
      id uuid PRIMARY KEY,
      admin_user_id uuid NOT NULL REFERENCES admin_users (id) ON DELETE CASCADE,
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      token_hash bytea NOT NULL,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT admin_sessions_token_key UNIQUE (token_hash)
    )`.execute(db);
  await sql`CREATE INDEX admin_sessions_user_idx ON admin_sessions (admin_user_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS admin_sessions`.execute(db);
}
