import type { Db } from '../../platform/db/database.js';
import { TtlCache } from '../../platform/ttl-cache.js';
import type { ComposedMessage, NotificationComposer, QueuedNotification } from './message.js';
import { createNotificationData, type NotificationDataDeps } from './notification-data.js';
import { renderMessage } from './render-message.js';
import { partsOf } from './template-parts.js';
import { findTemplate } from './templates.repository.js';

export interface ComposerDeps extends NotificationDataDeps {
  db: Db;
}

/** How long a store's first admin stands in for its missing contact e-mail, as the store row is cached. */
const REPLY_TO_CACHE_MS = 5000;

/**
 * The composer the send job calls for each message (message.ts): the store, its template of the
 * kind (or the default) and the records the message names, read now, outside any transaction, then
 * rendered with the limits of template-engine.ts. A template that fails to render throws a
 * TemplateError (the job fails the message: retrying would fail the same way). The template is read
 * for every message (a merchant who saves and sends a test sees the new wording at once); the
 * Reply-To fallback, like the store row, is reused for a few seconds.
 */
export function createNotificationComposer(deps: ComposerDeps): NotificationComposer {
  const data = createNotificationData(deps);
  const replyTo = new TtlCache<string | null>({ ttlMs: REPLY_TO_CACHE_MS, maxEntries: 1000 });

  return {
    async compose(notification: QueuedNotification): Promise<ComposedMessage> {
      const store = await data.store(notification.store_id);
      const [stored, variables, reply] = await Promise.all([
        findTemplate(deps.db, store.id, notification.kind),
        data.forMessage(notification, store),
        store.contact_email ? store.contact_email : replyTo.getOrLoad(store.id, () => data.replyTo(store)),
      ]);
      const rendered = renderMessage(partsOf(notification.kind, stored), variables);
      return { ...rendered, storeName: store.name, replyTo: reply };
    },
  };
}
