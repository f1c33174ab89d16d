import type { NotificationKind } from './kinds.js';
import type { RenderedMessage } from './notifications.schemas.js';
import type { NotificationRefs } from './notifications.tables.js';

/** A queued e-mail as the worker claims it: what `compose` needs to build it. */
export interface QueuedNotification {
  id: string;
  store_id: string;
  kind: NotificationKind;
  to_email: string;
  order_id: string | null;
  refs: NotificationRefs;
  /** A test send: rendered with the preview's data (the store's latest order, or sample data). */
  test: boolean;
}

/** A message ready for the mailer: the rendered parts and the store's sender details. */
export interface ComposedMessage extends RenderedMessage {
  /** For `From: "<store name>" <MAIL_FROM>`. */
  storeName: string;
  /** The store's contact e-mail (its owner's when unset), for `Reply-To`. */
  replyTo: string | null;
}

/**
 * Builds a queued e-mail at send time: the store's template of its kind (or the default) rendered
 * with the records it names, read now. Throws when the template fails to render (the message then
 * fails: a merchant's broken template is not retried).
 */
export interface NotificationComposer {
  compose(notification: QueuedNotification): Promise<ComposedMessage>;
}
