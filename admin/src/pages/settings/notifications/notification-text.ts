import type { FieldError } from '../../../api/client';
import { NOTIFICATION_KINDS, type NotificationKind } from '../../../api/types';

/**
 * The e-mails of contract §13 in the merchant's words, and the pure rules of the notifications pages
 * (which template part an error of the API belongs to, what a test send's answer means).
 */

export const NOTIFICATION_KIND_LIST = NOTIFICATION_KINDS;
export type NotificationKindName = NotificationKind;

interface KindText {
  label: string;
  /** When it is sent, in a sentence. */
  when: string;
  audience: 'customer' | 'store';
}

const KINDS: Record<NotificationKindName, KindText> = {
  order_confirmation: {
    label: 'Order confirmation',
    when: 'When an order is placed: the receipt, with its items, totals and address.',
    audience: 'customer',
  },
  shipping_confirmation: {
    label: 'Shipping confirmation',
    when: 'When an order is fulfilled, with the carrier and tracking link.',
    audience: 'customer',
  },
  order_cancelled: {
    label: 'Order cancelled',
    when: 'When an order is cancelled.',
    audience: 'customer',
  },
  refund_issued: {
    label: 'Refund issued',
    when: 'When money is refunded: the amount and what remains paid.',
    audience: 'customer',
  },
  back_in_stock: {
    label: 'Back in stock',
    when: 'When a sold-out product a shopper asked about is in stock again.',
    audience: 'customer',
  },
  new_order: {
    label: 'New order',
    when: 'When an order is placed: who bought what, and the total.',
    audience: 'store',
  },
  low_stock: {
    label: 'Low stock',
    when: 'When a product’s stock falls to its low-stock threshold.',
    audience: 'store',
  },
};

export function isKindName(value: string): value is NotificationKindName {
  return (NOTIFICATION_KIND_LIST as readonly string[]).includes(value);
}

/** "order_confirmation" → "Order confirmation"; a kind this dashboard does not know, humanised. */
export function kindLabel(kind: string): string {
  if (isKindName(kind)) return KINDS[kind].label;
  const text = kind.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function kindDescription(kind: string): string {
  return isKindName(kind) ? KINDS[kind].when : '';
}

export const AUDIENCES = [
  { audience: 'customer', title: 'To your customers' },
  { audience: 'store', title: 'To you' },
] as const;

/** The kinds of one audience, in the order of the contract, as the API listed them. */
export function kindsFor<T extends { kind: string }>(
  templates: readonly T[],
  audience: 'customer' | 'store',
): T[] {
  const order = (kind: string) => {
    const i = (NOTIFICATION_KIND_LIST as readonly string[]).indexOf(kind);
    return i === -1 ? NOTIFICATION_KIND_LIST.length : i;
  };
  const own = (t: T) => (isKindName(t.kind) ? KINDS[t.kind].audience : 'customer') === audience;
  return templates.filter(own).sort((a, b) => order(a.kind) - order(b.kind));
}

export const TEMPLATE_PARTS = ['subject', 'html', 'text'] as const;
export type TemplatePart = (typeof TEMPLATE_PARTS)[number];
export type TemplateParts = Record<TemplatePart, string>;

/**
 * A 400 of a template's PUT or preview, by part: each detail that names `subject`, `html` or `text`
 * (as `html`, `/body/html` or `body.html`) goes beside that field; a message naming the part at its
 * start ("html: line 3: …") without details goes there too; anything else is `other`.
 */
export function errorsByPart(
  message: string,
  details: readonly FieldError[],
): Partial<Record<TemplatePart | 'other', string>> {
  const result: Partial<Record<TemplatePart | 'other', string>> = {};
  for (const detail of details) {
    const part = partOf(detail.field);
    if (part) result[part] = result[part] ? `${result[part]}; ${detail.message}` : detail.message;
  }
  if (Object.keys(result).length > 0) return result;
  const named = /^(subject|html|text)\b\s*:?\s*/.exec(message);
  if (named) {
    result[named[1] as TemplatePart] = message;
    return result;
  }
  result.other = message;
  return result;
}

function partOf(field: string): TemplatePart | undefined {
  const name = field
    .replace(/^\/?body[./]?/, '')
    .replace(/^\//, '')
    .split(/[./]/)[0];
  return (TEMPLATE_PARTS as readonly string[]).includes(name ?? '') ? (name as TemplatePart) : undefined;
}

/** The first line number an error message names ("line 3", "line:3"), for a screen reader's summary. */
export function lineOf(message: string): number | undefined {
  const match = /\bline[\s:]+(\d+)/i.exec(message);
  return match ? Number(match[1]) : undefined;
}

/** Where line `line` (from 1) of `text` starts and ends, to select it in a textarea; undefined past the end. */
export function lineRange(text: string, line: number): [number, number] | undefined {
  if (!Number.isInteger(line) || line < 1) return undefined;
  let start = 0;
  for (let n = 1; n < line; n++) {
    const next = text.indexOf('\n', start);
    if (next === -1) return undefined;
    start = next + 1;
  }
  const end = text.indexOf('\n', start);
  return [start, end === -1 ? text.length : end];
}

/** The parts that differ from what was saved: what a preview sends as unsaved, and what Save sends. */
export function changedParts(saved: TemplateParts, draft: TemplateParts): Partial<TemplateParts> {
  const changed: Partial<TemplateParts> = {};
  for (const part of TEMPLATE_PARTS) if (draft[part] !== saved[part]) changed[part] = draft[part];
  return changed;
}

/**
 * What the preview can send: the API refuses an empty part (minLength 1), so an emptied field is
 * left out and previewed as saved, and the form says it cannot be saved empty.
 */
export function previewBody(saved: TemplateParts, draft: TemplateParts): Partial<TemplateParts> {
  const changed = changedParts(saved, draft);
  for (const part of TEMPLATE_PARTS) if (changed[part] === '') delete changed[part];
  return changed;
}

/** What the merchant is told after a test send, from the log record the API answered. */
export function testSendOutcome(record: { to: string; status: string; last_error: string | null }): {
  tone: 'success' | 'info' | 'warning';
  text: string;
} {
  if (record.status === 'sent') return { tone: 'success', text: `Sent to ${record.to}.` };
  if (record.status === 'failed')
    return {
      tone: 'warning',
      text: `Could not be sent to ${record.to}${record.last_error ? `: ${record.last_error}` : '.'}`,
    };
  return {
    tone: 'info',
    text: `Queued for ${record.to}: it leaves with the next run of the mail worker.`,
  };
}

const STATUS_LABELS: Record<string, string> = { pending: 'Queued', sent: 'Sent', failed: 'Failed' };

export function notificationStatusLabel(status: string): string {
  return STATUS_LABELS[status] ?? status;
}
