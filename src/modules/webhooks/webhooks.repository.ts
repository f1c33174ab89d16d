import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type {
  DeliveryStatus,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhooksTable,
} from './webhooks.tables.js';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

// ── Webhooks (merchant API) ─────────────────────────────────────────────────────────────────────

export async function insertWebhook(db: Executor, row: Insertable<WebhooksTable>) {
  return db.insertInto('webhooks').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findWebhook(db: Executor, storeId: string, id: string) {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listWebhooks(db: Executor, storeId: string, page: { offset: number; limit: number }) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('webhooks')
      .selectAll()
      .where('store_id', '=', storeId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('store_id', '=', storeId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

export function updateWebhook(db: Executor, storeId: string, id: string, patch: Updateable<WebhooksTable>) {
  return db
    .updateTable('webhooks')
    .set({ updated_at: new Date(), ...patch })
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** The webhook's version, locked until the writing transaction ends (If-Match is compared on it). */
export function lockWebhook(db: Executor, storeId: string, id: string) {
  return db
    .selectFrom('webhooks')
    .select(['id', 'updated_at', 'active'])
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export async function deleteWebhook(db: Executor, storeId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhooks')
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

// ── Delivery log ───────────────────────────────────────────────────────────────────────────────

export async function listAttempts(
  db: Executor,
  storeId: string,
  webhookId: string,
  filter: { status?: DeliveryStatus },
  page: { offset: number; limit: number },
) {
  let query = db
    .selectFrom('webhook_attempts')
    .where('store_id', '=', storeId)
    .where('webhook_id', '=', webhookId);
  if (filter.status) query = query.where('status', '=', filter.status);
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

export function findDelivery(db: Executor, storeId: string, webhookId: string, id: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Ends a manual send: the new status, lease released; the retry schedule is left as it was. */
export async function releaseManualSend(db: Executor, storeId: string, id: string, status: DeliveryStatus) {
  await db
    .updateTable('webhook_deliveries')
    .set({ status, locked_until: null, updated_at: new Date() })
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .execute();
}

export async function insertDeliveries(db: Executor, rows: Insertable<WebhookDeliveriesTable>[]) {
  if (rows.length) await db.insertInto('webhook_deliveries').values(rows).execute();
}

export * from './webhooks.delivery.repository.js';
