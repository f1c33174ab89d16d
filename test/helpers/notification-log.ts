import type { NotificationKind } from '../../src/modules/notifications/index.js';
import type { Db } from '../../src/platform/db/database.js';
import type { Client } from './catalog-factories.js';

export interface LoggedMail {
  id: string;
  kind: NotificationKind;
  to: string;
  subject: string | null;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  last_error: string | null;
  order_id: string | null;
  created_at: string;
  sent_at: string | null;
}

/** GET /api/v1/notifications with `query` (all pages joined, newest first); fails unless 200. */
export async function mailsOf(api: Client, query: Record<string, string> = {}): Promise<LoggedMail[]> {
  const mails: LoggedMail[] = [];
  for (let page = 1; ; page++) {
    const params = new URLSearchParams({ ...query, page: String(page), limit: '100' });
    const res = await api.get(`/api/v1/notifications?${params}`);
    if (res.statusCode !== 200) throw new Error(`the log answered ${res.statusCode}: ${res.body}`);
    const body = res.json();
    mails.push(...body.data);
    if (!body.meta.pagination.has_next) return mails;
  }
}

/** The e-mails of one order, as `kind → to` pairs sorted, for exact comparisons. */
export async function mailsOfOrder(api: Client, orderId: string) {
  const mails = await mailsOf(api, { order_id: orderId });
  return mails.map((m) => `${m.kind} → ${m.to}`).sort();
}

/**
 * Turns a kind off for a store, as Settings → Notifications does (the templates' routes are another
 * part of issue 32; the row they write is the one the queue reads).
 */
export async function turnOff(db: Db, storeId: string, kind: NotificationKind) {
  await db
    .insertInto('notification_templates')
    .values({ store_id: storeId, kind, enabled: false })
    .onConflict((oc) => oc.columns(['store_id', 'kind']).doUpdateSet({ enabled: false }))
    .execute();
}
