import type { Db } from '../../platform/db/database.js';
import { TtlCache } from '../../platform/ttl-cache.js';
import type { NotificationKind } from './kinds.js';
import type { ComposedMessage, NotificationComposer, QueuedNotification } from './message.js';
import { createNotificationData, type NotificationDataDeps } from './notification-data.js';
import { renderMessage } from './render-message.js';
import { partsOf } from './template-parts.js';
import { listTemplates, type StoredTemplate } from './templates.repository.js';

export interface ComposerDeps extends NotificationDataDeps {
  db: Db;
  /**
   * How long a store's templates and Reply-To address are reused between messages (default 1 s; 0:
   * read for every message). A change to a template reaches the worker within this time.
   */
  storeCacheMs?: number;
}

interface StoreMailSettings {
  templates: Map<NotificationKind, StoredTemplate>;
  replyTo: string | null;
}

/**
 * The composer the send job calls for each message (message.ts): the store, its template of the
 * kind (or the default) and the records the message names, read now, outside any transaction, then
 * rendered with the limits of template-engine.ts. A template that fails to render throws a
 * TemplateError (the job fails the message: retrying would fail the same way). A burst of one
 * store's messages (a sale, a bulk fulfilment) reads its templates and Reply-To once a second, not
 * once per message: the order's own reads are then the only queries of a message.
 */
export function createNotificationComposer(deps: ComposerDeps): NotificationComposer {
  const data = createNotificationData(deps);
  const settings = new TtlCache<StoreMailSettings>({ ttlMs: deps.storeCacheMs ?? 1000, maxEntries: 1000 });

  return {
    async compose(notification: QueuedNotification): Promise<ComposedMessage> {
      const store = await data.store(notification.store_id);
      const [mail, variables] = await Promise.all([
        settings.getOrLoad(store.id, async () => {
          const [templates, replyTo] = await Promise.all([
            listTemplates(deps.db, store.id),
            data.replyTo(store),
          ]);
          return { templates: new Map(templates.map((t) => [t.kind, t])), replyTo };
        }),
        data.forMessage(notification, store),
      ]);
      const rendered = renderMessage(
        partsOf(notification.kind, mail.templates.get(notification.kind)),
        variables,
      );
      return { ...rendered, storeName: store.name, replyTo: mail.replyTo };
    },
  };
}
