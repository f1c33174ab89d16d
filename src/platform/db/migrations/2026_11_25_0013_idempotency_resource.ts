import { type Kysely, sql } from 'kysely';

/**
 * What an Idempotency-Key created, written in the transaction of the creation itself: a crash
 * between the commit and the storing of the response no longer lets a retry create it twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE idempotency_keys ADD COLUMN resource_type text, ADD COLUMN resource_id uuid`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE idempotency_keys DROP COLUMN resource_type, DROP COLUMN resource_id`.execute(db);
}
