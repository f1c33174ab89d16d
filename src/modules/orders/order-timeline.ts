import { Type } from 'typebox';
import type { RequestContext } from '../../platform/http/context.js';
import { Nullable, StringEnum } from '../../platform/http/envelopes.js';
import { notFound } from '../../platform/http/errors.js';
import { isUuid } from '../../platform/ids.js';
import { currencyDecimals } from '../../platform/money.js';
import { storeActorNames } from '../stores/index.js';
import type { HistoryRow } from './order-history.js';
import { listHistory } from './order-history.repository.js';
import * as repo from './orders.repository.js';
import { customerNameOf } from './orders.serializers.js';
import type { OrdersDeps } from './orders.shared.js';

/** An order rarely has more than a few dozen changes; the newest beyond this bound are left off. */
export const TIMELINE_LIMIT = 500;

const Change = Type.Object({ before: Type.Unknown(), after: Type.Unknown() });

export const TimelineEntry = Type.Object({
  id: Type.String(),
  type: StringEnum([
    'created',
    'paid',
    'payment',
    'items_edited',
    'fulfilled',
    'refunded',
    'cancelled',
    'status_changed',
    'notes_changed',
    'address_changed',
    'updated',
  ]),
  at: Type.String({ format: 'date-time' }),
  actor: Type.Object({
    type: StringEnum(['user', 'api_key', 'customer', 'system', 'unknown']),
    id: Nullable(Type.String()),
    name: Nullable(
      Type.String({ description: 'null when unknown (removed, or recorded before actors were)' }),
    ),
  }),
  summary: Type.String(),
  changes: Type.Record(Type.String(), Change, {
    description: 'field → { before, after }: for items_edited, line_items, subtotal and total',
  }),
  data: Type.Record(Type.String(), Type.Unknown(), {
    description: 'what else the change recorded: amount, payment_method, carrier, tracking_number, reason…',
  }),
});

export const TimelineEnvelope = Type.Object({
  data: Type.Array(TimelineEntry),
  has_more: Type.Boolean({ description: `true when the order has more than ${TIMELINE_LIMIT} entries` }),
});

type Data = Record<string, unknown>;

/** One line a person reads, from what the entry recorded. */
function summaryOf(row: HistoryRow, currency: string): string {
  const d: Data = row.data;
  const money = (value: unknown) =>
    typeof value === 'number' ? `${value.toFixed(currencyDecimals(currency))} ${currency}` : '';
  const text = (value: unknown) => (typeof value === 'string' && value ? value : null);
  const total = row.changes.total as { before: unknown; after: unknown } | undefined;
  switch (row.type) {
    case 'created':
      return `Order placed: ${money(d.total)}`.trim();
    case 'paid':
      return `Paid ${money(d.amount)}${text(d.payment_method) ? ` (${d.payment_method})` : ''}`;
    case 'payment':
      return `Payment of ${money(d.amount)} recorded`;
    case 'items_edited':
      return total ? `Items edited: total ${money(total.before)} → ${money(total.after)}` : 'Items edited';
    case 'fulfilled': {
      const tracking = [text(d.carrier), text(d.tracking_number)].filter(Boolean).join(' ');
      return tracking ? `Fulfilled, tracking ${tracking}` : 'Fulfilled';
    }
    case 'refunded':
      return `Refunded ${money(d.amount)}${text(d.reason) ? `: ${d.reason}` : ''}`;
    case 'cancelled':
      return `Cancelled${text(d.reason) ? `: ${d.reason}` : ''}`;
    case 'status_changed': {
      const status = row.changes.status as { before: unknown; after: unknown } | undefined;
      return status ? `Status ${status.before} → ${status.after}` : 'Status changed';
    }
    case 'notes_changed':
      return 'Notes changed';
    case 'address_changed':
      return 'Shipping address changed';
    default:
      return `Updated: ${Object.keys(row.changes).join(', ') || 'details'}`;
  }
}

/** GET /orders/{id}/timeline: the order's history, oldest first, with who made each change. */
export function createOrderTimeline(deps: Pick<OrdersDeps, 'db'>) {
  return async function timeline(ctx: RequestContext, id: string) {
    const order = isUuid(id) ? await repo.findOrder(deps.db, ctx.storeId, id) : undefined;
    if (!order) throw notFound('order');
    const rows = await listHistory(deps.db, ctx.storeId, order.id, TIMELINE_LIMIT + 1);
    const shown = rows.slice(0, TIMELINE_LIMIT);
    const idsOf = (type: string) =>
      shown.flatMap((r) => (r.actor_type === type && r.actor_id ? [r.actor_id] : []));
    const names = await storeActorNames(deps.db, ctx.storeId, {
      apiKeys: idsOf('api_key'),
      users: idsOf('user'),
    });
    const buyer = customerNameOf(order) ?? order.customer_email;
    const nameOf = (row: HistoryRow) => {
      if (row.actor_type === 'customer') return row.actor_id === order.customer_id ? buyer : null;
      if (row.actor_type === 'system') return 'System';
      if (row.actor_type === 'unknown') return null;
      return row.actor_id ? (names.get(row.actor_id) ?? null) : null;
    };
    return {
      data: shown.map((row) => ({
        id: row.id,
        type: row.type,
        at: row.created_at.toISOString(),
        actor: { type: row.actor_type, id: row.actor_id, name: nameOf(row) },
        summary: summaryOf(row, order.currency),
        changes: row.changes,
        data: row.data,
      })),
      has_more: rows.length > TIMELINE_LIMIT,
    };
  };
}
