import type { Db } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/http/context.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { notFound } from '../../platform/http/errors.js';
import { isUuid } from '../../platform/ids.js';
import * as repo from './orders.repository.js';
import { details } from './orders.shared.js';

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
