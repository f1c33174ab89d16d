import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { FulfillmentRow, LineItemRow, OrderRow } from './orders.repository.js';

/**
 * Orders read several at a time (the e-mail worker composes a claimed batch of messages at once),
 * each by its tenant key, a pair (store_id, id): no order is found under another store's id. The
 * rows are those findOrder, lineItems and fulfillments read one order at a time, in the same order
 * within each order.
 */

/** Order keys as two parallel arrays (the i-th order is (storeIds[i], ids[i])), the shape `unnest` takes. */
export interface OrderKeys {
  storeIds: string[];
  ids: string[];
}

/** `(store_id, <order column>) IN` the keys. */
const amongKeys = (keys: OrderKeys, orderColumn: 'id' | 'order_id') =>
  sql<boolean>`(store_id, ${sql.ref(orderColumn)}) IN (SELECT * FROM unnest(${keys.storeIds}::uuid[], ${keys.ids}::uuid[]))`;

export function findOrders(db: Executor, keys: OrderKeys): Promise<OrderRow[]> {
  return db.selectFrom('orders').selectAll().where(amongKeys(keys, 'id')).execute();
}

export function lineItemsOfOrders(db: Executor, keys: OrderKeys): Promise<LineItemRow[]> {
  return db
    .selectFrom('order_line_items')
    .selectAll()
    .where(amongKeys(keys, 'order_id'))
    .orderBy('order_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
}

export function fulfillmentsOfOrders(db: Executor, keys: OrderKeys): Promise<FulfillmentRow[]> {
  return db
    .selectFrom('order_fulfillments')
    .selectAll()
    .where(amongKeys(keys, 'order_id'))
    .orderBy('order_id')
    .orderBy('created_at')
    .execute();
}
