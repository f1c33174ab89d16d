import type { Db } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/http/context.js';
import { notFound } from '../../platform/http/errors.js';
import { isUuid } from '../../platform/ids.js';
import { insertResend } from './notifications.delivery.repository.js';
import type { NotificationLogRow } from './notifications.serializers.js';

/**
 * `POST /api/v1/notifications/{id}/resend` (contract §13): a new message repeating one of the
 * store's, queued now and sent by the worker like any other (its own id, so its own Message-ID).
 * It is sent even when the kind is now turned off: the merchant asked for this one.
 */
export function createNotificationResender(db: Db) {
  return {
    async resend(ctx: RequestContext, id: string): Promise<NotificationLogRow> {
      const row = isUuid(id) ? await insertResend(db, ctx.storeId, id) : undefined;
      if (!row) throw notFound('notification');
      return row;
    },
  };
}

export type NotificationResender = ReturnType<typeof createNotificationResender>;
