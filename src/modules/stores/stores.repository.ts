import type { Insertable, Updateable } from 'kysely';
import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { isUuid } from '../../platform/ids.js';
import type { MemberRole, StoresTable } from './stores.tables.js';

export function insertStore(db: Executor, row: Insertable<StoresTable>) {
  return db.insertInto('stores').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findStoreBySlug(db: Executor, slug: string) {
  return db.selectFrom('stores').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export function findStoreById(db: Executor, storeId: string) {
  return db.selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirst();
}

/** The store's row, locked until the transaction ends (a settings write compares its version). */
export function lockStore(tx: Executor, storeId: string) {
  return tx.selectFrom('stores').selectAll().where('id', '=', storeId).forUpdate().executeTakeFirst();
}

export async function countStores(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('stores')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertAdminUser(db: Executor, row: { id: string; email: string; password_hash: string }) {
  return db
    .insertInto('admin_users')
    .values(row)
    .returning(['id', 'email', 'created_at'])
    .executeTakeFirstOrThrow();
}

export function findAdminUserByEmail(db: Executor, email: string) {
  return db
    .selectFrom('admin_users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

export async function grantStoreAccess(
  db: Executor,
  storeId: string,
  adminUserId: string,
  member: { role: MemberRole; permissions?: string[] } = { role: 'owner' },
) {
  await db
    .insertInto('admin_user_stores')
    .values({
      store_id: storeId,
      admin_user_id: adminUserId,
      role: member.role,
      permissions: member.permissions ?? [],
    })
    .onConflict((oc) => oc.columns(['store_id', 'admin_user_id']).doNothing())
    .execute();
}

export async function updateStore(db: Executor, storeId: string, patch: Updateable<StoresTable>) {
  await db.updateTable('stores').set(patch).where('id', '=', storeId).execute();
}

/**
 * The e-mail of the store's owner (the earliest owner; a store without one: its earliest admin), or
 * undefined: who stands in for a missing contact e-mail (the queue's recipient rule, §13).
 */
export async function ownerEmail(db: Executor, storeId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('admin_users as u')
    .innerJoin('admin_user_stores as s', 's.admin_user_id', 'u.id')
    .select('u.email')
    .where('s.store_id', '=', storeId)
    .orderBy(sql`s.role = 'owner'`, 'desc')
    .orderBy('u.created_at')
    .orderBy('u.id')
    .limit(1)
    .executeTakeFirst();
  return row?.email;
}

export async function adminEmails(db: Executor, storeId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('admin_users as u')
    .innerJoin('admin_user_stores as s', 's.admin_user_id', 'u.id')
    .select('u.email')
    .where('s.store_id', '=', storeId)
    .execute();
  return rows.map((r) => r.email);
}

export function storesOfAdmin(db: Executor, adminUserId: string) {
  return db
    .selectFrom('stores as s')
    .innerJoin('admin_user_stores as a', 'a.store_id', 's.id')
    .select(['s.id', 's.slug', 's.name', 'a.role'])
    .where('a.admin_user_id', '=', adminUserId)
    .orderBy('s.name')
    .execute();
}

export function findAdminUser(db: Executor, id: string) {
  return db.selectFrom('admin_users').select(['id', 'email']).where('id', '=', id).executeTakeFirst();
}

/** Compare-and-set: replaces the hash only while it is still `current`. */
export async function replacePasswordHash(db: Executor, id: string, current: string, replacement: string) {
  await db
    .updateTable('admin_users')
    .set({ password_hash: replacement })
    .where('id', '=', id)
    .where('password_hash', '=', current)
    .execute();
}

export async function touchAdminLogin(db: Executor, id: string) {
  await db.updateTable('admin_users').set({ last_login_at: new Date() }).where('id', '=', id).execute();
}

/** The store whose web shop answers on `host` (already lower-case), whatever its status. */
export function findStoreByCustomDomain(db: Executor, host: string) {
  return db.selectFrom('stores').selectAll().where('custom_domain', '=', host).executeTakeFirst();
}

/**
 * Every active or suspended store's custom domain: the in-memory directory's source (few rows, by the
 * index). A suspended store keeps its domain routed, so that its shop shows it closed there too.
 */
export function listCustomDomains(db: Executor) {
  return db
    .selectFrom('stores')
    .select(['id', 'slug', 'custom_domain'])
    .where('custom_domain', 'is not', null)
    .where('status', 'in', ['active', 'suspended'])
    .execute();
}

/** The names of the store's API keys and admin users (their e-mail) among these ids, for histories. */
export async function actorNames(
  db: Executor,
  storeId: string,
  actors: { apiKeys: string[]; users: string[] },
): Promise<Map<string, string>> {
  // Ids come from history rows; one that is not a UUID (never ours) would only fail the cast.
  const ids = { apiKeys: actors.apiKeys.filter(isUuid), users: actors.users.filter(isUuid) };
  const keys = ids.apiKeys.length
    ? await db
        .selectFrom('api_keys')
        .select(['id', 'name'])
        .where('store_id', '=', storeId)
        .where('id', 'in', ids.apiKeys)
        .execute()
    : [];
  const users = ids.users.length
    ? await db
        .selectFrom('admin_users as u')
        .innerJoin('admin_user_stores as s', 's.admin_user_id', 'u.id')
        .select(['u.id', 'u.email as name'])
        .where('s.store_id', '=', storeId)
        .where('u.id', 'in', ids.users)
        .execute()
    : [];
  return new Map([...keys, ...users].map((row) => [row.id, row.name]));
}
