import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DataEnvelope, IdParams, ListEnvelope, listEnvelope, pageOf } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { ifMatchOf, withEtag } from '../../platform/http/etag.js';
import { Category, CategoryCreateBody, CategoryListQuery, CategoryUpdateBody } from './catalog.schemas.js';
import { categoryForMerchant } from './catalog.serializers.js';
import type { CategoriesService } from './categories.service.js';

export const categoriesRoutes: FastifyPluginAsyncTypebox<{ categories: CategoriesService }> = async (
  app,
  { categories },
) => {
  app.get(
    '/categories',
    {
      config: { scope: 'products:read' },
      schema: {
        tags: ['Categories'],
        operationId: 'listCategories',
        summary: 'List categories (by position, then name)',
        querystring: CategoryListQuery,
        response: { 200: ListEnvelope(Category) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const parent = request.query.parent_id;
      const { rows, total } = await categories.list(request.ctx.storeId, page, {
        parentId: parent === undefined ? undefined : parent === 'root' ? null : parent,
      });
      return listEnvelope(rows.map(categoryForMerchant), page, total);
    },
  );

  app.post(
    '/categories',
    {
      config: { scope: 'products:write' },
      schema: {
        tags: ['Categories'],
        operationId: 'createCategory',
        summary: 'Create a category',
        body: CategoryCreateBody,
        response: { 201: DataEnvelope(Category), ...errorResponses(409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: categoryForMerchant(await categories.create(request.ctx, request.body)) }),
  );

  app.get(
    '/categories/:id',
    {
      config: { scope: 'products:read' },
      schema: {
        tags: ['Categories'],
        operationId: 'getCategory',
        summary: 'Get a category',
        'x-etag': true,
        params: IdParams,
        response: { 200: DataEnvelope(Category) },
      },
    },
    async (request, reply) => ({
      data: withEtag(reply, categoryForMerchant(await categories.get(request.ctx, request.params.id))),
    }),
  );

  app.patch(
    '/categories/:id',
    {
      config: { scope: 'products:write' },
      schema: {
        tags: ['Categories'],
        operationId: 'updateCategory',
        summary: 'Update a category',
        params: IdParams,
        body: CategoryUpdateBody,
        response: { 200: DataEnvelope(Category), ...errorResponses(409, 412) },
      },
    },
    async (request, reply) => {
      const ifMatch = ifMatchOf(request);
      const row = await categories.update(request.ctx, request.params.id, request.body, ifMatch);
      return { data: withEtag(reply, categoryForMerchant(row)) };
    },
  );

  app.delete(
    '/categories/:id',
    {
      config: { scope: 'products:write' },
      schema: {
        tags: ['Categories'],
        operationId: 'deleteCategory',
        summary: 'Delete a category (its products stay; sub-categories move to the top level)',
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await categories.remove(request.ctx, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
