import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  type CursorCodec,
  CursorListEnvelope,
  cursorList,
  isOrderNumberKey,
} from '../../platform/http/cursor.js';
import { DataEnvelope, IdParams } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { etagOf, ifMatchOf, withEtag } from '../../platform/http/etag.js';
import { parseMoney } from '../../platform/http/money-input.js';
import { currencyDecimals, toDecimalNumber } from '../../platform/money.js';
import type { StoresService } from '../stores/index.js';
import type { createOrderEditor, EditItemsResult as EditOutcome, EditPreview } from './order-edit.js';
import { TimelineEnvelope } from './order-timeline.js';
import {
  CancelBody,
  EditItemsBody,
  EditItemsResult,
  FulfillBody,
  MarkPaidBody,
  Order,
  OrderCreateBody,
  OrderListQuery,
  OrderSummary,
  OrderUpdateBody,
} from './orders.schemas.js';
import { orderForMerchant, orderSummaryForMerchant } from './orders.serializers.js';
import type { OrdersService } from './orders.service.js';
import { lineTotal } from './totals.js';

export interface OrdersRoutesDeps {
  orders: OrdersService;
  orderEdits: ReturnType<typeof createOrderEditor>;
  stores: StoresService;
  cursors: CursorCodec;
}

function editResponse({ order, oldTotal, lines }: EditOutcome) {
  const money = (minor: number) => toDecimalNumber(minor, currencyDecimals(order.currency));
  return {
    id: order.id,
    order_number: order.order_number,
    old_total: money(oldTotal),
    new_total: money(order.total),
    price_difference: money(order.total - oldTotal),
    subtotal: money(order.subtotal),
    discount_amount: money(order.discount_amount),
    total: money(order.total),
    line_items: lines.map((l) => ({
      id: l.id,
      name: l.name,
      quantity: l.quantity,
      price: money(l.price),
      total: money(lineTotal(l)),
    })),
  };
}

/** The seed's edit answer, plus the order as the edit would leave it (nothing was saved). */
function previewResponse(preview: EditPreview) {
  return { ...editResponse(preview), dry_run: true as const, order: orderForMerchant(preview) };
}

const Data = DataEnvelope(Order);

export const ordersRoutes: FastifyPluginAsyncTypebox<OrdersRoutesDeps> = async (app, deps) => {
  const { orders, stores, cursors } = deps;
  const decimalsOf = async (storeId: string) => currencyDecimals((await stores.getStore(storeId)).currency);

  app.get(
    '/orders',
    {
      config: { scope: 'orders:read' },
      schema: {
        tags: ['Orders'],
        operationId: 'listOrders',
        summary: 'List orders, newest (highest number) first',
        querystring: OrderListQuery,
        response: { 200: CursorListEnvelope(OrderSummary) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = cursorList(cursors, 'orders', request.ctx.storeId, q, isOrderNumberKey);
      const { rows, total, more } = await orders.list(request.ctx, page, {
        status: q.status,
        paymentStatus: q.payment_status as never,
        fulfillmentStatus: q.fulfillment_status as never,
        customerId: q.customer_id,
        createdFrom: q.created_from ? new Date(q.created_from) : undefined,
        createdTo: q.created_to ? new Date(q.created_to) : undefined,
        q: q.q,
      });
      return page.envelope({
        data: rows.map(orderSummaryForMerchant),
        total,
        more,
        lastKey: rows.at(-1)?.order_number,
      });
    },
  );

  app.post(
    '/orders',
    {
      config: {
        scope: 'orders:write',
        idempotent: {
          render: async (request, id) => ({ data: orderForMerchant(await orders.get(request.ctx, id)) }),
        },
      },
      schema: {
        tags: ['Orders'],
        operationId: 'createOrder',
        summary: 'Create a manual or imported order (stock and discounts as at checkout)',
        body: OrderCreateBody,
        response: { 201: Data, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const decimals = await decimalsOf(request.ctx.storeId);
      const placed = await orders.create(request.ctx, {
        customer: body.customer,
        items: body.items.map((item, i) => ({
          productId: item.product_id,
          variantId: item.variant_id,
          quantity: item.quantity,
          price: item.price === undefined ? undefined : parseMoney(item.price, `items.${i}.price`, decimals),
        })),
        shippingAddress: body.shipping_address,
        shippingRateId: body.shipping_rate_id,
        couponCode: body.coupon_code,
        notes: body.notes,
        paymentMethod: body.payment_method ?? 'manual',
        markPaid: body.mark_paid,
        sendReceipt: body.send_receipt === true,
      });
      return reply.code(201).send({ data: orderForMerchant(placed) });
    },
  );

  app.get(
    '/orders/:id/timeline',
    {
      config: { scope: 'orders:read' },
      schema: {
        tags: ['Orders'],
        operationId: 'getOrderTimeline',
        summary: "The order's history, oldest first: every change, who made it and when",
        description:
          'Created, paid, items edited (lines and amounts before/after), fulfilled (tracking), refunded, cancelled (reason), status, notes and address changes. Bounded to the first 500 entries (`has_more`).',
        params: IdParams,
        response: { 200: TimelineEnvelope },
      },
    },
    (request) => orders.timeline(request.ctx, request.params.id),
  );

  app.get(
    '/orders/:id',
    {
      config: { scope: 'orders:read' },
      schema: {
        tags: ['Orders'],
        operationId: 'getOrder',
        summary: 'Get an order',
        'x-etag': true,
        params: IdParams,
        response: { 200: Data },
      },
    },
    async (request, reply) => ({
      data: withEtag(reply, orderForMerchant(await orders.get(request.ctx, request.params.id))),
    }),
  );

  app.patch(
    '/orders/:id',
    {
      config: { scope: 'orders:write' },
      schema: {
        tags: ['Orders'],
        operationId: 'updateOrder',
        summary: 'Update status, notes or shipping address',
        description:
          'A status change follows the order life cycle: `processing` from pending collects the balance (mark-paid), `completed` fulfils, `cancelled` cancels with restock, `on_hold` pauses and leaving it returns to the paused status. Any other change is 409.',
        params: IdParams,
        body: OrderUpdateBody,
        response: { 200: Data, ...errorResponses(409, 412) },
      },
    },
    async (request, reply) => {
      const ifMatch = ifMatchOf(request);
      const order = await orders.update(request.ctx, request.params.id, request.body, ifMatch);
      return { data: withEtag(reply, orderForMerchant(order)) };
    },
  );

  app.post(
    '/orders/:id/edit-items',
    {
      config: { scope: 'orders:write', audit: { action: 'order.edit_items', resourceType: 'order' } },
      schema: {
        tags: ['Orders'],
        operationId: 'editOrderItems',
        summary: 'Change, add or remove line items of an unfulfilled order',
        description:
          "One transaction: stock moves by the exact deltas (409 insufficient_stock and nothing changes when short), totals are recomputed with the discount and shipping frozen, the lines are retaxed at the rate of the order's tax region (its `tax_lines`; a store-wide rate's tax stays as it was), and the payment status follows the balance. Fulfilled or cancelled orders: 409. With `dry_run: true` the same edit is computed and rolled back: the answer adds `dry_run` and `order` (the order as the edit would leave it), nothing is saved and no ETag is sent.",
        params: IdParams,
        body: EditItemsBody,
        response: { 200: DataEnvelope(EditItemsResult), ...errorResponses(409, 412) },
      },
    },
    async (request, reply) => {
      const ifMatch = ifMatchOf(request);
      const decimals = await decimalsOf(request.ctx.storeId);
      const body = request.body;
      const input = {
        update_quantity: body.update_quantity,
        remove: body.remove,
        add: body.add?.map((a, i) => ({ ...a, price: parseMoney(a.price, `add.${i}.price`, decimals) })),
      };
      if (body.dry_run) {
        // No ETag: the order's version is still the one the preview was asked on.
        const preview = await deps.orderEdits.previewEdit(request.ctx, request.params.id, input, ifMatch);
        return { data: previewResponse(preview) };
      }
      const result = await deps.orderEdits.editItems(request.ctx, request.params.id, input, ifMatch);
      // The order's new version, for the next edit.
      reply.header('etag', etagOf(result.order));
      return { data: editResponse(result) };
    },
  );

  app.post(
    '/orders/:id/fulfill',
    {
      config: { scope: 'orders:write' },
      schema: {
        tags: ['Orders'],
        operationId: 'fulfillOrder',
        summary: 'Fulfil a paid order, with optional tracking',
        params: IdParams,
        body: Type.Optional(FulfillBody),
        response: { 200: Data, ...errorResponses(409) },
      },
    },
    async (request) => ({
      data: orderForMerchant(await orders.fulfill(request.ctx, request.params.id, request.body ?? {})),
    }),
  );

  app.post(
    '/orders/:id/cancel',
    {
      config: { scope: 'orders:write' },
      schema: {
        tags: ['Orders'],
        operationId: 'cancelOrder',
        summary: 'Cancel an order that is not fulfilled (restocks by default)',
        params: IdParams,
        body: Type.Optional(CancelBody),
        response: { 200: Data, ...errorResponses(409) },
      },
    },
    async (request) => ({
      data: orderForMerchant(await orders.cancel(request.ctx, request.params.id, request.body ?? {})),
    }),
  );

  app.post(
    '/orders/:id/mark-paid',
    {
      config: { scope: 'orders:write', audit: { action: 'order.mark_paid', resourceType: 'order' } },
      schema: {
        tags: ['Orders'],
        operationId: 'markOrderPaid',
        summary: 'Record a payment: the balance due by default',
        params: IdParams,
        body: Type.Optional(MarkPaidBody),
        response: { 200: Data, ...errorResponses(409) },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      const decimals = await decimalsOf(request.ctx.storeId);
      return {
        data: orderForMerchant(
          await orders.markPaid(request.ctx, request.params.id, {
            amount: body.amount === undefined ? undefined : parseMoney(body.amount, 'amount', decimals),
            payment_method: body.payment_method,
          }),
        ),
      };
    },
  );
};
