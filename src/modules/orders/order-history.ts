import type { Executor } from '../../platform/db/database.js';
import { rawSql, sqlText } from '../../platform/db/sql-text.js';
import { WriteBatch, type Writer } from '../../platform/db/write-batch.js';
import type { RequestContext } from '../../platform/http/context.js';
import { newId } from '../../platform/ids.js';
import type { OrderChangeSource, OrderChanges } from './order-events.js';

/**
 * The order's durable history (issue 30, item 5): one row per change, with who made it, written in
 * the change's transaction. The outbox's events are pruned once delivered; these rows are not.
 */
export type ActorType = 'user' | 'api_key' | 'customer' | 'system';

/** Who changes an order: the actor for its history, the source for its order.updated event. */
export interface OrderActor {
  source: OrderChangeSource;
  type: ActorType;
  id: string | null;
}

export const SYSTEM_ACTOR: OrderActor = { source: 'system', type: 'system', id: null };

const ACTOR_TYPES = {
  api_key: 'api_key',
  admin_user: 'user',
  customer: 'customer',
  system: 'system',
} as const;

export function actorOf(ctx: RequestContext): OrderActor {
  const type = ACTOR_TYPES[ctx.actor.kind];
  return { source: ctx.source, type, id: type === 'system' ? null : ctx.actor.id };
}

export type HistoryType =
  | 'created'
  | 'paid'
  | 'payment'
  | 'items_edited'
  | 'fulfilled'
  | 'refunded'
  | 'cancelled'
  | 'status_changed'
  | 'notes_changed'
  | 'address_changed'
  /** Copied from an older order.updated event: what changed is in `changes`. */
  | 'updated';

export interface HistoryRow {
  id: string;
  store_id: string;
  order_id: string;
  type: HistoryType;
  actor_type: ActorType;
  actor_id: string | null;
  changes: OrderChanges;
  data: Record<string, unknown>;
  created_at: Date;
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Records one entry; `changes` as order.updated carries them, stored with snake_case names. */
export async function recordHistory(
  to: Writer,
  order: { store_id: string; id: string },
  by: OrderActor,
  type: HistoryType,
  entry: { changes?: OrderChanges; data?: Record<string, unknown> } = {},
): Promise<void> {
  const changes = Object.fromEntries(Object.entries(entry.changes ?? {}).map(([k, v]) => [snake(k), v]));
  const batch = to instanceof WriteBatch ? to : new WriteBatch(to);
  batch.insertRow('order_history', {
    id: sqlText`${newId()}::uuid`,
    store_id: sqlText`${order.store_id}::uuid`,
    order_id: sqlText`${order.id}::uuid`,
    type: sqlText`${type}::text`,
    actor_type: sqlText`${by.type}::text`,
    actor_id: sqlText`${by.id}::text`,
    changes: sqlText`${JSON.stringify(changes)}::jsonb`,
    data: sqlText`${JSON.stringify(entry.data ?? {})}::jsonb`,
    created_at: rawSql('now()'),
  });
  if (batch !== to) await batch.run();
}

/** The order's history, oldest first (in the order it was written), at most `limit` entries. */
export function listHistory(db: Executor, storeId: string, orderId: string, limit: number) {
  return db
    .selectFrom('order_history')
    .select(['id', 'store_id', 'order_id', 'type', 'actor_type', 'actor_id', 'changes', 'data', 'created_at'])
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .orderBy('seq')
    .limit(limit)
    .execute() as Promise<HistoryRow[]>;
}
