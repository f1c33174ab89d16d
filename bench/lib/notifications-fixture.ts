import { sql } from 'kysely';
import type { App } from '../../src/app.js';
import type { NotificationKind } from '../../src/modules/notifications/index.js';
import type { Db } from '../../src/platform/db/database.js';

/**
 * Issue 32's e-mails in the benchmarks: a store's contact e-mail (so that `new_order` has someone to
 * go to: the benchmarks' stores have no admin user) and kinds turned off the way a merchant does it,
 * through `PUT /api/v1/notifications/templates/{kind}`.
 */
export const CONTACT_EMAIL = 'orders@bench.example';

/** The e-mails checkout queues for each order it places (contract §13). */
export const ORDER_KINDS: readonly NotificationKind[] = ['order_confirmation', 'new_order'];

export async function giveContactEmail(app: App, storeId: string): Promise<void> {
  await app.services.stores.updateSettings(storeId, { contact_email: CONTACT_EMAIL });
}

/** Turns `kinds` off through the merchant API (an API key of the store, injected requests). */
export async function turnOffKinds(
  app: App,
  storeId: string,
  kinds: readonly NotificationKind[],
): Promise<void> {
  const key = await app.services.stores.createApiKey(storeId, { name: 'bench', scopes: ['settings:write'] });
  for (const kind of kinds) {
    const response = await app.server.inject({
      method: 'PUT',
      url: `/api/v1/notifications/templates/${kind}`,
      headers: { 'x-api-key': key.key, 'content-type': 'application/json' },
      payload: JSON.stringify({ enabled: false }),
    });
    if (response.statusCode !== 200) {
      throw new Error(`turning ${kind} off: PUT answered ${response.statusCode} ${response.body}`);
    }
  }
}

/** The store's queued e-mails (any status), in all and per kind. */
export async function notificationCounts(
  db: Db,
  storeId: string,
): Promise<{ total: number; byKind: Record<string, number> }> {
  const { rows } = await sql<{ kind: string; n: number }>`
    SELECT kind, count(*)::int AS n FROM notifications WHERE store_id = ${storeId} GROUP BY kind`.execute(db);
  const byKind = Object.fromEntries(rows.map((r) => [r.kind, Number(r.n)]));
  return { total: rows.reduce((sum, r) => sum + Number(r.n), 0), byKind };
}

/** The e-mails queued for one order: kind and recipient, by kind. */
export async function notificationsOfOrder(db: Db, storeId: string, orderId: string) {
  const { rows } = await sql<{ kind: string; to_email: string }>`
    SELECT kind, to_email FROM notifications WHERE store_id = ${storeId} AND order_id = ${orderId}
    ORDER BY kind`.execute(db);
  return rows;
}
