import { type SqlText, sqlText } from '../../platform/db/sql-text.js';
import { WriteBatch, type Writer } from '../../platform/db/write-batch.js';
import type { NotificationKind } from './kinds.js';
import type { NotificationRefs } from './notifications.tables.js';

/** The channel a committed e-mail is announced on; the worker's notification job LISTENs to it. */
export const NOTIFICATIONS_CHANNEL = 'emporium_notifications';

export interface QueueNotificationInput {
  storeId: string;
  kind: NotificationKind;
  /** The buyer's address; omitted for the store's kinds (its contact e-mail, else its owner's). */
  to?: string | null;
  orderId?: string | null;
  refs?: NotificationRefs;
  /** One message per cause (`order_confirmation:<order id>`): a second queueing of it is dropped. */
  dedupeKey?: string | null;
}

/**
 * One e-mail, as a single `INSERT … SELECT` that can join an order's write batch: nothing when the
 * store turned the kind off, when there is no one to send it to, or when its cause was already
 * queued (`dedupe_key`). The recipient of the store's kinds is read in the same statement. Returns a
 * row when it queued one, which the caller's NOTIFY waits on.
 */
export function insertNotification(input: QueueNotificationInput): SqlText {
  // The store's kinds: its contact e-mail, else its first owner's (a store without an owner: its
  // first member's).
  const recipient = input.to
    ? sqlText`${input.to}::text`
    : sqlText`coalesce(nullif(s.contact_email, ''), (
        SELECT u.email FROM admin_user_stores m JOIN admin_users u ON u.id = m.admin_user_id
        WHERE m.store_id = s.id ORDER BY m.role = 'owner' DESC, u.created_at, u.id LIMIT 1))`;
  return sqlText`
    INSERT INTO notifications (id, store_id, kind, to_email, order_id, refs, dedupe_key)
    SELECT emporium_uuid_v7(), s.id, ${input.kind}::text, r.to_email, ${input.orderId ?? null}::uuid,
      ${JSON.stringify(input.refs ?? {})}::jsonb, ${input.dedupeKey ?? null}::text
    FROM stores s, LATERAL (SELECT ${recipient} AS to_email) r
    WHERE s.id = ${input.storeId}::uuid AND r.to_email IS NOT NULL
      AND NOT EXISTS (
        SELECT 1 FROM notification_templates t
        WHERE t.store_id = s.id AND t.kind = ${input.kind}::text AND NOT t.enabled
      )
    ON CONFLICT (store_id, dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING
    RETURNING 1`;
}

/**
 * Queues an e-mail inside the caller's transaction (contract §13): it exists if and only if the
 * change that caused it commits, and the worker is woken at commit only if a row was written.
 * Given a WriteBatch (an order's writes), the e-mail joins the batch's single statement.
 */
export async function queueNotification(to: Writer, input: QueueNotificationInput): Promise<void> {
  const batch = to instanceof WriteBatch ? to : new WriteBatch(to);
  const write = batch.add(insertNotification(input));
  batch.notifyAtCommit(NOTIFICATIONS_CHANNEL, write);
  if (batch !== to) await batch.run();
}
