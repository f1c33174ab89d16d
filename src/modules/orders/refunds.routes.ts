import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  DataEnvelope,
  IdParams,
  ListEnvelope,
  listEnvelope,
  offsetOf,
  PageQuery,
  pageOf,
} from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { parseMoney } from '../../platform/http/money-input.js';
import { currencyDecimals } from '../../platform/money.js';
import type { StoresService } from '../stores/index.js';
import { Refund, RefundCreateBody } from './orders.schemas.js';
import type { OrdersService } from './orders.service.js';
import { refundForMerchant } from './refunds.serializers.js';

export interface RefundsRoutesDeps {
  orders: OrdersService;
  stores: StoresService;
}

/** Refunds of an order (contract §9): merchant routes under /api/v1/orders/{id}/refunds. */
export const refundsRoutes: FastifyPluginAsyncTypebox<RefundsRoutesDeps> = async (app, deps) => {
  const { orders, stores } = deps;

  app.post(
    '/orders/:id/refunds',
    {
      config: {
        scope: 'orders:write',
        idempotent: {
          render: async (request, id) => {
            const { refund, currency } = await orders.getRefund(request.ctx, id);
            return { data: refundForMerchant(refund, currency) };
          },
        },
      },
      schema: {
        tags: ['Orders'],
        operationId: 'createRefund',
        summary: 'Refund part or all of what was paid, optionally returning units to stock',
        description:
          "`amount` is at most what was paid minus what was refunded or is pending (else 400); an unpaid order is 409, and so is restock on a cancelled order (its stock was settled when it was cancelled). Orders paid with `manual`, `test_card` or any method without a provider are recorded at once (`succeeded`). A provider's order (Stripe) is refunded through its API after the refund is written `pending` (reserving its amount and units), with the refund id as idempotency key: the answer is the refund as the provider left it — `succeeded` (applied), `failed` (released, nothing restocked) or `pending` (settled when the provider reports it). Restocked units go back at success only. The order's `amount_refunded` and `payment_status` (`partially_refunded`, `refunded`) follow; `order.refunded` is sent.",
        params: IdParams,
        body: RefundCreateBody,
        response: { 201: DataEnvelope(Refund), ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const decimals = currencyDecimals((await stores.getStore(request.ctx.storeId)).currency);
      const { refund, currency } = await orders.refund(request.ctx, request.params.id, {
        amount: parseMoney(body.amount, 'amount', decimals),
        reason: body.reason,
        restock: body.restock,
      });
      return reply.code(201).send({ data: refundForMerchant(refund, currency) });
    },
  );

  app.get(
    '/orders/:id/refunds',
    {
      config: { scope: 'orders:read' },
      schema: {
        tags: ['Orders'],
        operationId: 'listRefunds',
        summary: "List an order's refunds, newest first",
        params: IdParams,
        querystring: Type.Object({ ...PageQuery }),
        response: { 200: ListEnvelope(Refund) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { rows, total, currency } = await orders.listRefunds(request.ctx, request.params.id, {
        offset: offsetOf(page),
        limit: page.limit,
      });
      return listEnvelope(
        rows.map((r) => refundForMerchant(r, currency)),
        page,
        total,
      );
    },
  );
};
