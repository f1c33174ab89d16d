import type { Db } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/http/context.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { notFound } from '../../platform/http/errors.js';
import { isUuid } from '../../platform/ids.js';
import * as many from './orders.many.repository.js';
import * as repo from './orders.repository.js';
import type { OrderDetails } from './orders.serializers.js';
import { details } from './orders.shared.js';

/** An order's key in the map getMany answers: its store and its id. */
export const orderKey = (storeId: string, id: string) => `${storeId} ${id}`;

/** Reading orders: the merchant's list and order, a customer's own orders. */
export function createOrderReads(db: Db) {
  return {
    /** A page by number, or after a cursor's order number (`after`). */
    async list(ctx: RequestContext, page: PageRequest & { after?: number }, filter: repo.OrderFilter) {
      if (filter.customerId && !isUuid(filter.customerId)) return { rows: [], total: 0, more: false };
      return repo.listOrders(db, ctx.storeId, filter, {
        offset: offsetOf(page),
        limit: page.limit,
        after: page.after,
      });
    },

    async get(ctx: RequestContext, id: string) {
      const order = isUuid(id) ? await repo.findOrder(db, ctx.storeId, id) : undefined;
      if (!order) throw notFound('order');
      return details(db, order);
    },

    /**
     * Several orders with their lines and fulfillments, each by (store, id), in three statements
     * whatever their number (the e-mail worker's batch): as `get` reads them one at a time, keyed by
     * orderKey. An order not found (or not of that store) is absent.
     */
    async getMany(orders: readonly { storeId: string; id: string }[]): Promise<Map<string, OrderDetails>> {
      const wanted = orders.filter((o) => isUuid(o.id));
      const keys = { storeIds: wanted.map((o) => o.storeId), ids: wanted.map((o) => o.id) };
      const found = new Map<string, OrderDetails>();
      if (wanted.length === 0) return found;
      const [rows, lines, fulfillments] = await Promise.all([
        many.findOrders(db, keys),
        many.lineItemsOfOrders(db, keys),
        many.fulfillmentsOfOrders(db, keys),
      ]);
      for (const order of rows)
        found.set(orderKey(order.store_id, order.id), { order, lines: [], fulfillments: [] });
      for (const line of lines) found.get(orderKey(line.store_id, line.order_id))?.lines.push(line);
      for (const f of fulfillments) found.get(orderKey(f.store_id, f.order_id))?.fulfillments.push(f);
      return found;
    },

    /** A customer's own order by its number; another customer's is not found. */
    async getForCustomer(storeId: string, customerId: string, orderNumber: number) {
      const order = await repo.findOrderByNumber(db, storeId, orderNumber, customerId);
      if (!order) throw notFound('order');
      return details(db, order);
    },

    hasOrders: (storeId: string) => repo.hasOrders(db, storeId),

    /** The store's most recent order with its lines and fulfillments (previews of e-mails), if any. */
    async latest(storeId: string) {
      const order = await repo.findLatestOrder(db, storeId);
      return order ? details(db, order) : undefined;
    },

    async listForCustomer(storeId: string, customerId: string, page: PageRequest) {
      return repo.listOrders(db, storeId, { customerId }, { offset: offsetOf(page), limit: page.limit });
    },
  };
}
