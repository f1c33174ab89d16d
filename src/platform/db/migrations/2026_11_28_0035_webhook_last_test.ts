import { type Kysely, sql } from 'kysely';

/**
 * Issue 30, item 10: the outcome of the latest test send, kept apart from `last_success_at` (which
 * counts real deliveries only, and drives the auto-disable rule), so a page can say that a test
 * worked without pretending an event was delivered. Stripe shows test events apart the same way.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE webhooks
      ADD COLUMN last_test_at timestamptz,
      ADD COLUMN last_test_succeeded boolean,
      ADD COLUMN last_test_status_code integer`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE webhooks
      DROP COLUMN last_test_at, DROP COLUMN last_test_succeeded, DROP COLUMN last_test_status_code`.execute(
    db,
  );
}
