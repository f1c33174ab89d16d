import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  type CursorCodec,
  CursorListEnvelope,
  cursorList,
  isCreatedKey,
} from '../../platform/http/cursor.js';
import { DataEnvelope, IdParams } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { ifMatchOf, withEtag } from '../../platform/http/etag.js';
import { Product, ProductCreateBody, ProductListQuery, ProductUpdateBody } from './catalog.schemas.js';
import type { ProductsService } from './products.service.js';

export const productsRoutes: FastifyPluginAsyncTypebox<{
  products: ProductsService;
  cursors: CursorCodec;
}> = async (app, { products, cursors }) => {
  app.get(
    '/products',
    {
      config: { scope: 'products:read' },
      schema: {
        tags: ['Products'],
        operationId: 'listProducts',
        summary: 'List products, newest first',
        querystring: ProductListQuery,
        response: { 200: CursorListEnvelope(Product) },
      },
    },
    async (request) => {
      const page = cursorList(cursors, 'products', request.ctx.storeId, request.query, isCreatedKey);
      const { status, category_id, q } = request.query;
      return page.envelope(await products.list(request.ctx, page, { status, categoryId: category_id, q }));
    },
  );

  app.post(
    '/products',
    {
      config: {
        scope: 'products:write',
        idempotent: {
          render: async (request, id) => ({
            success: true as const,
            data: await products.get(request.ctx, id),
          }),
        },
      },
      schema: {
        tags: ['Products'],
        operationId: 'createProduct',
        summary: 'Create a product (optionally re-hosting its images as WebP)',
        description:
          'With `download_images: true` every image is fetched (15 s, 20 MiB, image types only), converted to WebP and stored; if any fails, nothing is created (400 naming the URL; 507 `insufficient_storage` when the media storage is full or not writable). Items with `media_type: "video"` are kept as given.',
        body: ProductCreateBody,
        response: {
          201: Type.Object({ success: Type.Literal(true), data: Product }),
          ...errorResponses(409, 507),
        },
      },
    },
    async (request, reply) => {
      const data = await products.create(request.ctx, request.body);
      return reply.code(201).send({ success: true as const, data });
    },
  );

  app.get(
    '/products/:id',
    {
      config: { scope: 'products:read' },
      schema: {
        tags: ['Products'],
        operationId: 'getProduct',
        summary: 'Get a product',
        'x-etag': true,
        params: IdParams,
        response: { 200: DataEnvelope(Product) },
      },
    },
    async (request, reply) => ({ data: withEtag(reply, await products.get(request.ctx, request.params.id)) }),
  );

  app.patch(
    '/products/:id',
    {
      config: { scope: 'products:write' },
      schema: {
        tags: ['Products'],
        operationId: 'updateProduct',
        summary: 'Update a product',
        description:
          '`images` replaces the whole media list (same download rules as create). `variants` replaces the variant list: items with an `id` update that variant, items without one are added, variants left out are deleted.',
        params: IdParams,
        body: ProductUpdateBody,
        response: { 200: DataEnvelope(Product), ...errorResponses(409, 412, 507) },
      },
    },
    async (request, reply) => {
      const ifMatch = ifMatchOf(request);
      const product = await products.update(request.ctx, request.params.id, request.body, ifMatch);
      return { data: withEtag(reply, product) };
    },
  );

  app.delete(
    '/products/:id',
    {
      config: { scope: 'products:write' },
      schema: {
        tags: ['Products'],
        operationId: 'deleteProduct',
        summary: 'Delete a product',
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await products.remove(request.ctx, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
