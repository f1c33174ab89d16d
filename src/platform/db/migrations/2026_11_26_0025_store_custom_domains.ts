import { type Kysely, sql } from 'kysely';

/**
 * Contract §10: a store's own hostname for its web shop (`shop.example.com`), lower-cased by the
 * stores service. One store per hostname (the constraint is what makes a taken domain a 409, also
 * between two racing writes); NULL, the default, is no custom domain.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE stores ADD COLUMN custom_domain text CHECK (custom_domain = lower(custom_domain) AND length(custom_domain) <= 253)`.execute(
    db,
  );
  await sql`ALTER TABLE stores ADD CONSTRAINT stores_custom_domain_key UNIQUE (custom_domain)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE stores DROP COLUMN custom_domain`.execute(db);
}
