import { type Kysely, sql } from 'kysely';

/**
 * Indexes for the background worker's pruning of expired rows: each batch finds its rows through
 * the expiry column rather than a scan of the whole table (idempotency_keys has one on created_at).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX customer_login_codes_expires_idx ON customer_login_codes (expires_at)`.execute(db);
  await sql`CREATE INDEX customer_sessions_expires_idx ON customer_sessions (expires_at)`.execute(db);
  await sql`CREATE INDEX admin_sessions_expires_idx ON admin_sessions (expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS customer_login_codes_expires_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS customer_sessions_expires_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS admin_sessions_expires_idx`.execute(db);
}
