import type { Db } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { notFound } from '../../platform/http/errors.js';
import { contentEtag, type IfMatch, requireTag } from '../../platform/http/etag.js';
import { DEFAULT_TEMPLATES, type TemplateParts } from './defaults/default-templates.js';
import { isNotificationKind, NOTIFICATION_KINDS, type NotificationKind } from './kinds.js';
import { createNotificationData, type NotificationDataDeps } from './notification-data.js';
import type {
  NotificationTemplate,
  PreviewBody,
  RenderedMessage,
  TemplateUpdate,
} from './notifications.schemas.js';
import { notificationRecord } from './notifications.serializers.js';
import { renderForRequest } from './render-message.js';
import { previewVariables } from './sample-data.js';
import { isCustomised, partsOf } from './template-parts.js';
import * as repo from './templates.repository.js';
import { KIND_VARIABLES } from './variables.js';

const PARTS = ['subject', 'html', 'text'] as const;

/** The kind of a path, or 404 `not_found` (contract §13: an unknown kind names nothing). */
function requireKind(raw: string): NotificationKind {
  if (!isNotificationKind(raw)) throw notFound('notification kind');
  return raw;
}

function templateOf(kind: NotificationKind, stored: repo.StoredTemplate | undefined): NotificationTemplate {
  return {
    kind,
    enabled: stored?.enabled ?? true,
    ...partsOf(kind, stored),
    customised: isCustomised(stored),
    variables: [...KIND_VARIABLES[kind]],
  };
}

/** The ETag of a template: its content, so that it changes exactly when what the merchant edits does. */
export function templateEtag(template: NotificationTemplate): string {
  const { kind, enabled, subject, html, text } = template;
  return contentEtag({ kind, enabled, subject, html, text });
}

/**
 * The merchant's templates (contract §13): read, change, restore, preview, test. A store keeps a
 * row only for a kind it changed; each part equal to the default is stored as null, so that a
 * better default reaches every store that did not word that part itself.
 */
export function createTemplatesService(deps: NotificationDataDeps & { db: Db }) {
  const { db } = deps;
  const data = createNotificationData(deps);

  /** Parses and renders the parts with sample data: 400 naming the part and the line, else nothing. */
  async function checkParts(storeId: string, kind: NotificationKind, parts: TemplateParts) {
    const store = await data.store(storeId);
    renderForRequest(parts, previewVariables(kind, store, data.linksOf(store), undefined));
  }

  return {
    async list(storeId: string): Promise<NotificationTemplate[]> {
      const stored = new Map((await repo.listTemplates(db, storeId)).map((t) => [t.kind, t]));
      return NOTIFICATION_KINDS.map((kind) => templateOf(kind, stored.get(kind)));
    },

    async get(storeId: string, rawKind: string): Promise<NotificationTemplate> {
      const kind = requireKind(rawKind);
      return templateOf(kind, await repo.findTemplate(db, storeId, kind));
    },

    /**
     * Changes the parts given (and `enabled`); each is checked by parsing and rendering it first, and
     * nothing is stored when one fails. With If-Match, only over the version it names (412).
     */
    async update(storeId: string, rawKind: string, change: TemplateUpdate, ifMatch?: IfMatch) {
      const kind = requireKind(rawKind);
      const current = await repo.findTemplate(db, storeId, kind);
      const next = { ...partsOf(kind, current), ...definedParts(change) };
      await checkParts(storeId, kind, next);
      const defaults = DEFAULT_TEMPLATES[kind];
      await inTransaction(db, async (tx) => {
        await repo.lockTemplate(tx, storeId, kind);
        const locked = await repo.findTemplate(tx, storeId, kind);
        requireTag(ifMatch, templateEtag(templateOf(kind, locked)));
        const merged = { ...partsOf(kind, locked), ...definedParts(change) };
        const stored: repo.StoredTemplate = {
          kind,
          enabled: change.enabled ?? locked?.enabled ?? true,
          subject: merged.subject === defaults.subject ? null : merged.subject,
          html: merged.html === defaults.html ? null : merged.html,
          text: merged.text === defaults.text ? null : merged.text,
        };
        // The default, enabled, is no row at all.
        if (stored.enabled && !isCustomised(stored)) await repo.deleteTemplate(tx, storeId, kind);
        else await repo.saveTemplate(tx, storeId, stored);
      });
      return this.get(storeId, kind);
    },

    /**
     * Restores the default wording of the kind. Whether it is on stays as it was: turning a kind
     * off and on is the separate switch (`enabled`), not part of the wording.
     */
    async restore(storeId: string, rawKind: string): Promise<NotificationTemplate> {
      const kind = requireKind(rawKind);
      await inTransaction(db, async (tx) => {
        await repo.lockTemplate(tx, storeId, kind);
        const locked = await repo.findTemplate(tx, storeId, kind);
        if (locked && !locked.enabled)
          await repo.saveTemplate(tx, storeId, {
            kind,
            enabled: false,
            subject: null,
            html: null,
            text: null,
          });
        else await repo.deleteTemplate(tx, storeId, kind);
      });
      return this.get(storeId, kind);
    },

    /** The message as it would be sent now: unsaved parts given, else the saved ones, with the store's latest order or sample data. */
    async preview(storeId: string, rawKind: string, body: PreviewBody): Promise<RenderedMessage> {
      const kind = requireKind(rawKind);
      const [store, stored] = await Promise.all([data.store(storeId), repo.findTemplate(db, storeId, kind)]);
      const parts = { ...partsOf(kind, stored), ...definedParts(body) };
      return renderForRequest(parts, await data.forPreview(store, kind));
    },

    /** Queues one message of the kind to `to`, rendered by the worker with the preview's data. */
    async sendTest(storeId: string, rawKind: string, to: string) {
      const kind = requireKind(rawKind);
      const row = await inTransaction(db, (tx) => repo.insertTestNotification(tx, { storeId, kind, to }));
      return notificationRecord(row);
    },
  };
}

/** The parts a body gives (absent ones are not changed). */
function definedParts(body: Partial<TemplateParts>): Partial<TemplateParts> {
  const parts: Partial<TemplateParts> = {};
  for (const part of PARTS) {
    const value = body[part];
    if (value !== undefined) parts[part] = value;
  }
  return parts;
}

export type TemplatesService = ReturnType<typeof createTemplatesService>;
