import { batchLoader } from '../../platform/batch-loader.js';
import type { Db } from '../../platform/db/database.js';
import { TtlCache } from '../../platform/ttl-cache.js';
import { type OrderDetails, orderKey } from '../orders/index.js';
import type { NotificationKind } from './kinds.js';
import type { ComposedMessage, NotificationComposer, QueuedNotification } from './message.js';
import { createNotificationData, type NotificationDataDeps, ORDER_KINDS } from './notification-data.js';
import { renderMessage } from './render-message.js';
import { partsOf } from './template-parts.js';
import { findTemplatesOf, type StoredTemplate } from './templates.repository.js';

export interface ComposerDeps extends NotificationDataDeps {
  db: Db;
}

/** How long a store's owner stands in for its missing contact e-mail, as the store row is cached. */
const REPLY_TO_CACHE_MS = 5000;

const templateKey = (storeId: string, kind: NotificationKind) => `${storeId} ${kind}`;

/**
 * The composer the send job calls for each message (message.ts): the store, its template of the
 * kind (or the default) and the records the message names, read now, outside any transaction, then
 * rendered with the limits of template-engine.ts. A template that fails to render throws a
 * TemplateError (the job fails the message: retrying would fail the same way). The template is read
 * for every message (a merchant who saves and sends a test sees the new wording at once; a parsed
 * template is kept by its text, template-engine.ts); the Reply-To fallback, like the store row, is
 * reused for a few seconds.
 *
 * The send job starts a claimed batch of messages in one turn of the event loop: their templates,
 * and the orders of the order e-mails with their lines and fulfillments, are read together (one
 * statement for the templates, three for the orders, per batch instead of four per message).
 */
export function createNotificationComposer(deps: ComposerDeps): NotificationComposer {
  const data = createNotificationData(deps);
  const replyTo = new TtlCache<string | null>({ ttlMs: REPLY_TO_CACHE_MS, maxEntries: 1000 });
  const template = batchLoader<{ storeId: string; kind: NotificationKind }, StoredTemplate>({
    keyOf: (t) => templateKey(t.storeId, t.kind),
    loadAll: async (pairs) => {
      const rows = await findTemplatesOf(deps.db, pairs);
      return new Map(rows.map(({ store_id, ...row }) => [templateKey(store_id, row.kind), row]));
    },
  });
  const order = batchLoader<{ storeId: string; id: string }, OrderDetails>({
    keyOf: (o) => orderKey(o.storeId, o.id),
    loadAll: (orders) => deps.orders.getMany(orders),
  });
  /** The order a message names, read with the batch's (undefined: read alone, as forMessage does). */
  const orderOf = (n: QueuedNotification) =>
    !n.test && n.order_id && ORDER_KINDS.includes(n.kind)
      ? order({ storeId: n.store_id, id: n.order_id })
      : undefined;

  return {
    async compose(notification: QueuedNotification): Promise<ComposedMessage> {
      const [stored, details] = await Promise.all([
        template({ storeId: notification.store_id, kind: notification.kind }),
        orderOf(notification),
      ]);
      const store = await data.store(notification.store_id);
      const [variables, reply] = await Promise.all([
        data.forMessage(notification, store, details),
        store.contact_email ? store.contact_email : replyTo.getOrLoad(store.id, () => data.replyTo(store)),
      ]);
      const rendered = renderMessage(partsOf(notification.kind, stored), variables);
      return { ...rendered, storeName: store.name, replyTo: reply };
    },
  };
}
