import type { Executor } from '../../platform/db/database.js';
import { rawSql, sqlText } from '../../platform/db/sql-text.js';
import { WriteBatch, type Writer } from '../../platform/db/write-batch.js';
import { newId } from '../../platform/ids.js';
import type { OrderChanges } from './order-events.js';
import type { HistoryRow, HistoryType, OrderActor } from './order-history.js';

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
