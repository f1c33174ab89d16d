import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  DataEnvelope,
  ListEnvelope,
  listEnvelope,
  PageQuery,
  pageOf,
} from '../../platform/http/envelopes.js';
import { notFound } from '../../platform/http/errors.js';
import { CustomerOrder } from './customer-order.schema.js';
import { FulfillmentStatus, OrderStatus, PaymentStatus } from './order-status.schema.js';
import { orderForCustomer, orderSummaryForCustomer } from './orders.serializers.js';
import type { OrdersService } from './orders.service.js';

const CustomerOrderSummary = Type.Object({
  id: Type.String(),
  orderNumber: Type.String(),
  status: OrderStatus,
  paymentStatus: PaymentStatus,
  fulfillmentStatus: FulfillmentStatus,
  total: Type.Number(),
  itemCount: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
});

/** /api/customer/orders: the signed-in customer's own orders only; anyone else's is 404. */
export const customerOrdersRoutes: FastifyPluginAsyncTypebox<{ orders: OrdersService }> = async (
  app,
  { orders },
) => {
  const tags = ['Customer account'];

  app.get(
    '/orders',
    {
      schema: {
        tags,
        operationId: 'listCustomerOrders',
        summary: 'My orders, newest first',
        querystring: Type.Object(PageQuery),
        response: { 200: ListEnvelope(CustomerOrderSummary) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { rows, total } = await orders.listForCustomer(request.ctx.storeId, request.ctx.actor.id, page);
      return listEnvelope(rows.map(orderSummaryForCustomer), page, total);
    },
  );

  app.get(
    '/orders/:orderNumber',
    {
      schema: {
        tags,
        operationId: 'getCustomerOrder',
        summary: 'One of my orders, with its shipments and tracking',
        params: Type.Object({ orderNumber: Type.String({ minLength: 1, maxLength: 20 }) }),
        response: { 200: DataEnvelope(CustomerOrder) },
      },
    },
    async (request) => {
      const number = request.params.orderNumber.replace(/^#/, '');
      if (!/^\d{1,15}$/.test(number)) throw notFound('order');
      const details = await orders.getForCustomer(request.ctx.storeId, request.ctx.actor.id, Number(number));
      return { data: orderForCustomer(details) };
    },
  );
};
