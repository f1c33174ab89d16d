import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DataEnvelope, IdParams, ListEnvelope, listEnvelope, pageOf } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { ifMatchOf, withEtag } from '../../platform/http/etag.js';
import { Discount, DiscountCreateBody, DiscountListQuery, DiscountUpdateBody } from './discounts.schemas.js';
import type { DiscountsService } from './discounts.service.js';

export const discountsRoutes: FastifyPluginAsyncTypebox<{ discounts: DiscountsService }> = async (
  app,
  { discounts },
) => {
  app.get(
    '/discounts',
    {
      config: { scope: 'discounts:read' },
      schema: {
        tags: ['Discounts'],
        operationId: 'listDiscounts',
        summary: 'List discounts, newest first',
        querystring: DiscountListQuery,
        response: { 200: ListEnvelope(Discount) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { active, q } = request.query;
      const { data, total } = await discounts.list(request.ctx, page, { active, q });
      return listEnvelope(data, page, total);
    },
  );

  app.post(
    '/discounts',
    {
      config: {
        scope: 'discounts:write',
        idempotent: { render: async (request, id) => ({ data: await discounts.get(request.ctx, id) }) },
      },
      schema: {
        tags: ['Discounts'],
        operationId: 'createDiscount',
        summary: 'Create a discount (a coupon code, or automatic when code is null)',
        description:
          'Codes are unique per store, case-insensitive (409 conflict otherwise). `product_ids` and `category_ids` limit the discount to those products (empty: the whole cart). Honours `Idempotency-Key`.',
        body: DiscountCreateBody,
        response: { 201: DataEnvelope(Discount), ...errorResponses(409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await discounts.create(request.ctx, request.body) }),
  );

  app.get(
    '/discounts/:id',
    {
      config: { scope: 'discounts:read' },
      schema: {
        tags: ['Discounts'],
        operationId: 'getDiscount',
        summary: 'Get a discount',
        'x-etag': true,
        params: IdParams,
        response: { 200: DataEnvelope(Discount) },
      },
    },
    async (request, reply) => ({
      data: withEtag(reply, await discounts.get(request.ctx, request.params.id)),
    }),
  );

  app.patch(
    '/discounts/:id',
    {
      config: { scope: 'discounts:write' },
      schema: {
        tags: ['Discounts'],
        operationId: 'updateDiscount',
        summary: 'Update a discount',
        description:
          'Changing `type` to percentage or fixed_amount requires a `value`. `product_ids` and `category_ids` replace the lists. `usage_count` is read-only.',
        params: IdParams,
        body: DiscountUpdateBody,
        response: { 200: DataEnvelope(Discount), ...errorResponses(409, 412) },
      },
    },
    async (request, reply) => {
      const ifMatch = ifMatchOf(request);
      const discount = await discounts.update(request.ctx, request.params.id, request.body, ifMatch);
      return { data: withEtag(reply, discount) };
    },
  );

  app.delete(
    '/discounts/:id',
    {
      config: { scope: 'discounts:write' },
      schema: {
        tags: ['Discounts'],
        operationId: 'deleteDiscount',
        summary: 'Delete a discount (orders keep their coupon code and amounts)',
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await discounts.remove(request.ctx, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
