import type { Executor } from '../../platform/db/database.js';

export function insertApiKey(
  db: Executor,
  row: { id: string; store_id: string; name: string; key_prefix: string; key_hash: Buffer; scopes: string[] },
) {
  return db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

/**
 * The auth lookup: by hash, joined to the store so a disabled or deleting store's keys stop working
 * too. A suspended store's key is found: the caller refuses it saying why (storeLifecycle.admitMerchant).
 */
export function findActiveApiKeyByHash(db: Executor, hash: Buffer) {
  return db
    .selectFrom('api_keys')
    .innerJoin('stores', 'stores.id', 'api_keys.store_id')
    .select(['api_keys.id', 'api_keys.store_id', 'api_keys.scopes'])
    .where('api_keys.key_hash', '=', hash)
    .where('api_keys.revoked_at', 'is', null)
    .where('stores.status', 'in', ['active', 'suspended'])
    .executeTakeFirst();
}

export function listApiKeys(db: Executor, storeId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'name', 'key_prefix', 'scopes', 'created_at', 'last_used_at', 'revoked_at'])
    .where('store_id', '=', storeId)
    .orderBy('id', 'desc')
    .execute();
}

export function revokeApiKey(db: Executor, storeId: string, id: string) {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returning(['id'])
    .executeTakeFirst();
}

/** For the operator's CLI, which names a key by id alone: which store holds it. */
export async function findApiKeyStoreId(db: Executor, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('api_keys').select('store_id').where('id', '=', id).executeTakeFirst();
  return row?.store_id;
}

export async function touchApiKey(db: Executor, id: string) {
  await db.updateTable('api_keys').set({ last_used_at: new Date() }).where('id', '=', id).execute();
}
