import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { MemberRole } from '../stores/index.js';

/** A store's members with their user's e-mail and name: owners first, then by joining date. */
export function listMembers(db: Executor, storeId: string) {
  return memberQuery(db, storeId)
    .orderBy(sql`m.role = 'owner'`, 'desc')
    .orderBy('m.created_at')
    .orderBy('u.id')
    .execute();
}

export function findMember(db: Executor, storeId: string, userId: string) {
  return memberQuery(db, storeId).where('u.id', '=', userId).executeTakeFirst();
}

function memberQuery(db: Executor, storeId: string) {
  return db
    .selectFrom('admin_user_stores as m')
    .innerJoin('admin_users as u', 'u.id', 'm.admin_user_id')
    .select(['u.id as user_id', 'u.email', 'u.name', 'm.role', 'm.permissions', 'm.created_at'])
    .where('m.store_id', '=', storeId);
}

/** The member's row locked, and the store's owners locked with it (the last owner stays). */
export async function lockOwners(tx: Executor, storeId: string) {
  const rows = await tx
    .selectFrom('admin_user_stores')
    .select('admin_user_id')
    .where('store_id', '=', storeId)
    .where('role', '=', 'owner')
    .forUpdate()
    .execute();
  return rows.map((r) => r.admin_user_id);
}

export async function setPermissions(db: Executor, storeId: string, userId: string, permissions: string[]) {
  const result = await db
    .updateTable('admin_user_stores')
    .set({ permissions })
    .where('store_id', '=', storeId)
    .where('admin_user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Ends the membership and the user's sessions on this store, in the caller's transaction. */
export async function deleteMember(tx: Executor, storeId: string, userId: string) {
  const result = await tx
    .deleteFrom('admin_user_stores')
    .where('store_id', '=', storeId)
    .where('admin_user_id', '=', userId)
    .executeTakeFirst();
  await tx
    .deleteFrom('admin_sessions')
    .where('store_id', '=', storeId)
    .where('admin_user_id', '=', userId)
    .execute();
  return Number(result.numDeletedRows) > 0;
}

export async function addMember(
  tx: Executor,
  row: { store_id: string; admin_user_id: string; role: MemberRole; permissions: string[] },
) {
  const inserted = await tx
    .insertInto('admin_user_stores')
    .values(row)
    .onConflict((oc) => oc.columns(['store_id', 'admin_user_id']).doNothing())
    .returning('admin_user_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export function findUserByEmail(db: Executor, email: string) {
  return db
    .selectFrom('admin_users')
    .select(['id', 'email', 'name'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

export function insertUser(
  tx: Executor,
  row: { id: string; email: string; name: string | null; password_hash: string },
) {
  return tx
    .insertInto('admin_users')
    .values(row)
    .returning(['id', 'email', 'name'])
    .executeTakeFirstOrThrow();
}

export async function isMemberByEmail(db: Executor, storeId: string, email: string) {
  const row = await db
    .selectFrom('admin_user_stores as m')
    .innerJoin('admin_users as u', 'u.id', 'm.admin_user_id')
    .select('u.id')
    .where('m.store_id', '=', storeId)
    .where((eb) => eb(eb.fn('lower', ['u.email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  return row !== undefined;
}

const INVITATION_COLUMNS = ['id', 'store_id', 'email', 'permissions', 'expires_at', 'created_at'] as const;

export function insertInvitation(
  db: Executor,
  row: {
    id: string;
    store_id: string;
    email: string;
    permissions: string[];
    token_hash: Buffer;
    invited_by: string | null;
    expires_at: Date;
  },
) {
  return db
    .insertInto('staff_invitations')
    .values(row)
    .returning(INVITATION_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Pending: neither accepted nor revoked, and not expired. */
export function listPendingInvitations(db: Executor, storeId: string) {
  return pending(db)
    .select(INVITATION_COLUMNS)
    .where('store_id', '=', storeId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(500)
    .execute();
}

function pending(db: Executor) {
  return db
    .selectFrom('staff_invitations')
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`);
}

export async function revokeInvitation(db: Executor, storeId: string, id: string) {
  const result = await db
    .updateTable('staff_invitations')
    .set({ revoked_at: new Date() })
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A pending invitation by its token's hash; `lock` holds it until the transaction ends (single use). */
export function findPendingInvitation(db: Executor, tokenHash: Buffer, options: { lock?: boolean } = {}) {
  const query = pending(db).select(INVITATION_COLUMNS).where('token_hash', '=', tokenHash);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

export async function markAccepted(tx: Executor, id: string, userId: string) {
  await tx
    .updateTable('staff_invitations')
    .set({ accepted_at: new Date(), accepted_by: userId })
    .where('id', '=', id)
    .execute();
}
