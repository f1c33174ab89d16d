import type { Db } from '../../platform/db/database.js';
import type { ComposedMessage, NotificationComposer, QueuedNotification } from './message.js';
import { createNotificationData, type NotificationDataDeps } from './notification-data.js';
import { renderMessage } from './render-message.js';
import { partsOf } from './template-parts.js';
import { findTemplate } from './templates.repository.js';

export interface ComposerDeps extends NotificationDataDeps {
  db: Db;
}

/**
 * The composer the send job calls for each message (message.ts): the store, its template of the
 * kind (or the default) and the records the message names, read now, outside any transaction, then
 * rendered with the limits of template-engine.ts. A template that fails to render throws a
 * TemplateError (the job fails the message: retrying would fail the same way).
 */
export function createNotificationComposer(deps: ComposerDeps): NotificationComposer {
  const data = createNotificationData(deps);
  return {
    async compose(notification: QueuedNotification): Promise<ComposedMessage> {
      const store = await data.store(notification.store_id);
      const [stored, variables, replyTo] = await Promise.all([
        findTemplate(deps.db, store.id, notification.kind),
        data.forMessage(notification, store),
        data.replyTo(store),
      ]);
      const rendered = renderMessage(partsOf(notification.kind, stored), variables);
      return { ...rendered, storeName: store.name, replyTo };
    },
  };
}
