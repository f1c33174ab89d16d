import { DEFAULT_TEMPLATES, type TemplateParts } from './defaults/default-templates.js';
import type { NotificationKind } from './kinds.js';
import type { StoredTemplate } from './templates.repository.js';

/** A store's template of a kind as it renders: each part saved, else the default's. */
export function partsOf(kind: NotificationKind, stored: StoredTemplate | undefined): TemplateParts {
  const defaults = DEFAULT_TEMPLATES[kind];
  return {
    subject: stored?.subject ?? defaults.subject,
    html: stored?.html ?? defaults.html,
    text: stored?.text ?? defaults.text,
  };
}

/** Whether any part differs from the default (a part equal to the default is stored as null). */
export function isCustomised(stored: StoredTemplate | undefined): boolean {
  return Boolean(stored && (stored.subject !== null || stored.html !== null || stored.text !== null));
}
