import { sql } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';

export async function insertCode(
  db: Executor,
  row: { id: string; store_id: string; email: string; code_hash: Buffer; expires_at: Date },
) {
  await db.insertInto('customer_login_codes').values(row).execute();
}

/**
 * Serialises the code requests of one e-mail of one store until the caller's transaction ends, so
 * counting the recent codes and inserting a new one is one step (no burst passes the limit).
 */
export async function lockCodeRequests(tx: Tx, storeId: string, email: string) {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`login-code:${storeId}:${email}`}, 0))`.execute(
    tx,
  );
}

/** Codes requested for this e-mail since `since` (the per-e-mail request limit). */
export async function codesRequestedSince(db: Executor, storeId: string, email: string, since: Date) {
  const row = await db
    .selectFrom('customer_login_codes')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('store_id', '=', storeId)
    .where('email', '=', email)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The newest code of the e-mail, locked: concurrent guesses are counted one after the other. */
export function latestCodeForUpdate(db: Tx, storeId: string, email: string) {
  return db
    .selectFrom('customer_login_codes')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('email', '=', email)
    .orderBy('created_at', 'desc')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
}

export async function countWrongAttempt(db: Executor, id: string) {
  await db
    .updateTable('customer_login_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

export async function consumeCode(db: Executor, id: string) {
  await db
    .updateTable('customer_login_codes')
    .set({ consumed_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function insertSession(
  db: Executor,
  row: { id: string; store_id: string; customer_id: string; token_hash: Buffer; expires_at: Date },
) {
  await db.insertInto('customer_sessions').values(row).execute();
}

export function findSession(db: Executor, tokenHash: Buffer) {
  return db
    .selectFrom('customer_sessions')
    .select(['id', 'store_id', 'customer_id', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

export async function deleteSession(db: Executor, tokenHash: Buffer) {
  await db.deleteFrom('customer_sessions').where('token_hash', '=', tokenHash).execute();
}

/**
 * Deletes up to `limit` login codes that expired before `before` (one bounded statement; SKIP LOCKED,
 * so workers pruning side by side take different rows); returns how many.
 */
export async function deleteExpiredLoginCodes(db: Executor, before: Date, limit: number): Promise<number> {
  const result = await sql`DELETE FROM customer_login_codes WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM customer_login_codes WHERE expires_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED))`.execute(
    db,
  );
  return Number(result.numAffectedRows ?? 0);
}

/** Deletes up to `limit` customer sessions that expired before `before`, as deleteExpiredLoginCodes. */
export async function deleteExpiredSessions(db: Executor, before: Date, limit: number): Promise<number> {
  const result = await sql`DELETE FROM customer_sessions WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM customer_sessions WHERE expires_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED))`.execute(
    db,
  );
  return Number(result.numAffectedRows ?? 0);
}
