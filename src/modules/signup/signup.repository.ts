import { type Insertable, sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { SignupRequestsTable } from './signup.tables.js';

/** A new code for the address: replaces any earlier request (its code, password and store). */
export async function upsertRequest(db: Executor, row: Insertable<SignupRequestsTable>) {
  await db
    .insertInto('signup_requests')
    .values(row)
    .onConflict((oc) =>
      oc.column('email').doUpdateSet({
        code_hash: row.code_hash,
        password_hash: row.password_hash,
        store_name: row.store_name,
        currency: row.currency,
        timezone: row.timezone,
        attempts: 0,
        expires_at: row.expires_at,
        created_at: row.created_at,
      }),
    )
    .execute();
}

export function lockRequest(tx: Executor, email: string) {
  return tx
    .selectFrom('signup_requests')
    .selectAll()
    .where('email', '=', email)
    .forUpdate()
    .executeTakeFirst();
}

export async function countWrongAttempt(tx: Executor, email: string) {
  await tx
    .updateTable('signup_requests')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('email', '=', email)
    .execute();
}

export async function deleteRequest(db: Executor, email: string) {
  await db.deleteFrom('signup_requests').where('email', '=', email).execute();
}

/** Deletes up to `limit` requests that expired before `before` (SKIP LOCKED); returns how many. */
export async function deleteExpiredRequests(db: Executor, before: Date, limit: number): Promise<number> {
  const result = await sql`DELETE FROM signup_requests WHERE email = ANY(ARRAY(
    SELECT email FROM signup_requests WHERE expires_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED))`.execute(
    db,
  );
  return Number(result.numAffectedRows ?? 0);
}
