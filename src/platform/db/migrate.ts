import { Migrator, sql } from 'kysely';
import type { Db } from './database.js';
import { migrationProvider } from './migrations/index.js';

export interface MigrationOutcome {
  applied: string[];
  /** Constraints a migration added NOT VALID and this run validated. */
  validated: string[];
}

/**
 * Applies pending migrations (Kysely takes an advisory lock, so concurrent starts are safe), then
 * validates the constraints they added NOT VALID.
 */
export async function migrateToLatest(db: Db): Promise<MigrationOutcome> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`);
  }
  const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  return { applied, validated: await validateConstraints(db) };
}

/**
 * VALIDATE CONSTRAINT for every constraint of the schema that is still NOT VALID, each in its own
 * transaction (autocommit). Migrations add large foreign keys NOT VALID: new writes are checked from
 * their commit, and the scan of the existing rows happens here, outside Kysely's one migration
 * transaction, under locks that block neither reads nor writes (SHARE UPDATE EXCLUSIVE on the table,
 * ROW SHARE on the referenced one). Run at every start, so a validation interrupted by a crash is
 * finished by the next; a constraint that is already valid is not listed.
 */
export async function validateConstraints(db: Db): Promise<string[]> {
  const { rows } = await sql<{ table_name: string; name: string }>`
    SELECT c.conrelid::regclass::text AS table_name, c.conname AS name
    FROM pg_constraint c
    WHERE NOT c.convalidated AND c.contype IN ('f', 'c')
      AND c.connamespace = current_schema()::regnamespace
    ORDER BY 1, 2`.execute(db);
  const validated: string[] = [];
  for (const { table_name, name } of rows) {
    try {
      await sql`ALTER TABLE ${sql.raw(table_name)} VALIDATE CONSTRAINT ${sql.ref(name)}`.execute(db);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `constraint ${name} on ${table_name} could not be validated (rows written since it was added break it): ` +
          `${reason}. New writes are checked already; correct or remove those rows and start again.`,
      );
    }
    validated.push(name);
  }
  return validated;
}
