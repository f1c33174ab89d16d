import type { Executor } from '../../platform/db/database.js';
import type { NotificationKind } from './kinds.js';
import type { NotificationLogRow } from './notifications.serializers.js';
import type { NotificationStatus } from './notifications.tables.js';

export interface NotificationLogFilter {
  kind?: NotificationKind;
  status?: NotificationStatus;
  orderId?: string;
}

/**
 * A page of the store's e-mails, newest first (ids are UUID v7: time-ordered, and the store's index
 * is on them), and how many match. Test sends are listed too: they are e-mails the store sent.
 */
export async function listNotifications(
  db: Executor,
  storeId: string,
  filter: NotificationLogFilter,
  page: { offset: number; limit: number },
): Promise<{ rows: NotificationLogRow[]; total: number }> {
  let matching = db.selectFrom('notifications').where('store_id', '=', storeId);
  if (filter.kind) matching = matching.where('kind', '=', filter.kind);
  if (filter.status) matching = matching.where('status', '=', filter.status);
  if (filter.orderId) matching = matching.where('order_id', '=', filter.orderId);
  const [rows, count] = await Promise.all([
    matching
      .select([
        'id',
        'kind',
        'to_email',
        'subject',
        'status',
        'attempts',
        'last_error',
        'order_id',
        'created_at',
        'sent_at',
      ])
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    matching.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}
