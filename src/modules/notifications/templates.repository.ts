import { sql } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';
import { newId } from '../../platform/ids.js';
import type { NotificationKind } from './kinds.js';
import { NOTIFICATIONS_CHANNEL } from './notifications.queue.js';

/** SQL of `notification_templates`: a store's customised kinds (no row: the default, enabled). */

export interface StoredTemplate {
  kind: NotificationKind;
  enabled: boolean;
  subject: string | null;
  html: string | null;
  text: string | null;
}

const COLUMNS = ['kind', 'enabled', 'subject', 'html', 'text'] as const;

export function findTemplate(db: Executor, storeId: string, kind: NotificationKind) {
  return db
    .selectFrom('notification_templates')
    .select(COLUMNS)
    .where('store_id', '=', storeId)
    .where('kind', '=', kind)
    .executeTakeFirst() as Promise<StoredTemplate | undefined>;
}

export function listTemplates(db: Executor, storeId: string) {
  return db
    .selectFrom('notification_templates')
    .select(COLUMNS)
    .where('store_id', '=', storeId)
    .execute() as Promise<StoredTemplate[]>;
}

/**
 * Serialises the writes of one store's kind (the row may not exist yet, so there is no row to lock):
 * an If-Match is compared, and the row written, under it.
 */
export async function lockTemplate(tx: Tx, storeId: string, kind: NotificationKind): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`notification_template:${storeId}:${kind}`}))`.execute(
    tx,
  );
}

export async function saveTemplate(tx: Tx, storeId: string, template: StoredTemplate): Promise<void> {
  const { kind, ...parts } = template;
  await tx
    .insertInto('notification_templates')
    .values({ store_id: storeId, kind, ...parts, updated_at: new Date() })
    .onConflict((oc) => oc.columns(['store_id', 'kind']).doUpdateSet({ ...parts, updated_at: new Date() }))
    .execute();
}

export async function deleteTemplate(tx: Tx, storeId: string, kind: NotificationKind): Promise<void> {
  await tx
    .deleteFrom('notification_templates')
    .where('store_id', '=', storeId)
    .where('kind', '=', kind)
    .execute();
}

/**
 * A test send of a kind (`POST …/templates/{kind}/test`): one message to the address given, rendered
 * by the worker with the preview's data. Sent even when the kind is off (the merchant asked for it),
 * with no order (it is not one of an order's e-mails) and no dedupe key (each test is its own). The
 * worker is woken at commit.
 */
export async function insertTestNotification(
  tx: Tx,
  input: { storeId: string; kind: NotificationKind; to: string },
) {
  const row = await tx
    .insertInto('notifications')
    .values({ id: newId(), store_id: input.storeId, kind: input.kind, to_email: input.to, test: true })
    .returningAll()
    .executeTakeFirstOrThrow();
  await sql`SELECT pg_notify(${NOTIFICATIONS_CHANNEL}, '')`.execute(tx);
  return row;
}

/**
 * The templates of several (store, kind) pairs in one statement (the send job's batch), with their
 * store: a pair without a row (the default, enabled) has none.
 */
export function findTemplatesOf(db: Executor, pairs: readonly { storeId: string; kind: NotificationKind }[]) {
  const storeIds = pairs.map((p) => p.storeId);
  const kinds = pairs.map((p) => p.kind);
  return db
    .selectFrom('notification_templates')
    .select(['store_id', ...COLUMNS])
    .where(sql<boolean>`(store_id, kind) IN (SELECT * FROM unnest(${storeIds}::uuid[], ${kinds}::text[]))`)
    .execute() as Promise<(StoredTemplate & { store_id: string })[]>;
}
