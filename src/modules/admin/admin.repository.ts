import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';

export async function insertSession(
  db: Executor,
  row: { id: string; admin_user_id: string; store_id: string; token_hash: Buffer; expires_at: Date },
) {
  await db.insertInto('admin_sessions').values(row).execute();
}

/**
 * A live session whose user still has access to its store, with that membership's role and
 * permissions as they are now (read per request: a removed member or a narrowed permission takes
 * effect on the next request).
 */
export function findSession(db: Executor, tokenHash: Buffer) {
  return db
    .selectFrom('admin_sessions as s')
    .innerJoin('admin_user_stores as a', (join) =>
      join.onRef('a.admin_user_id', '=', 's.admin_user_id').onRef('a.store_id', '=', 's.store_id'),
    )
    .innerJoin('admin_users as u', 'u.id', 's.admin_user_id')
    .select(['s.id', 's.admin_user_id', 's.store_id', 'a.role', 'a.permissions', 'u.name', 'u.email'])
    .where('s.token_hash', '=', tokenHash)
    .where('s.expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

export async function deleteSession(db: Executor, tokenHash: Buffer) {
  await db.deleteFrom('admin_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Deletes up to `limit` sessions that expired before `before` (SKIP LOCKED); returns how many. */
export async function deleteExpiredSessions(db: Executor, before: Date, limit: number): Promise<number> {
  const result = await sql`DELETE FROM admin_sessions WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM admin_sessions WHERE expires_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED))`.execute(
    db,
  );
  return Number(result.numAffectedRows ?? 0);
}

/** The user's role and permissions in the store, or undefined when not a member. */
export function findMembership(db: Executor, adminUserId: string, storeId: string) {
  return db
    .selectFrom('admin_user_stores')
    .select(['role', 'permissions'])
    .where('admin_user_id', '=', adminUserId)
    .where('store_id', '=', storeId)
    .executeTakeFirst();
}
