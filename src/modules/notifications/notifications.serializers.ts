import type { Selectable } from 'kysely';
import type { NotificationRecord } from './notifications.schemas.js';
import type { NotificationsTable } from './notifications.tables.js';

/** The columns the log shows: what `notificationRecord` reads. */
export type NotificationLogRow = Pick<
  Selectable<NotificationsTable>,
  | 'id'
  | 'kind'
  | 'to_email'
  | 'subject'
  | 'status'
  | 'attempts'
  | 'last_error'
  | 'order_id'
  | 'created_at'
  | 'sent_at'
>;

/** One e-mail of the log as /api/v1 answers it (contract §13). */
export function notificationRecord(row: NotificationLogRow): NotificationRecord {
  return {
    id: row.id,
    kind: row.kind,
    to: row.to_email,
    subject: row.subject,
    status: row.status,
    attempts: row.attempts,
    last_error: row.last_error,
    order_id: row.order_id,
    created_at: row.created_at.toISOString(),
    sent_at: row.sent_at ? row.sent_at.toISOString() : null,
  };
}
