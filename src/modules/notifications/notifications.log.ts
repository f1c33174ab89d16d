import type { Db } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/http/context.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { listNotifications, type NotificationLogFilter } from './notifications.log.repository.js';

/** The log of contract §13: every e-mail the store queued, what became of it. */
export function createNotificationLog(db: Db) {
  return {
    list: (ctx: RequestContext, filter: NotificationLogFilter, page: PageRequest) =>
      listNotifications(db, ctx.storeId, filter, { offset: offsetOf(page), limit: page.limit }),
  };
}

export type NotificationLog = ReturnType<typeof createNotificationLog>;
