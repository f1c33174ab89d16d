import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { StorefrontProductSummary } from '../storefront/index.js';
import type { WishlistService } from './wishlist.service.js';

const ProductBody = Type.Object(
  { productId: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
const Wishlisted = Type.Object({ productId: Type.String(), wishlisted: Type.Boolean() });
const ProductParams = Type.Object({ productId: Type.String({ minLength: 1, maxLength: 100 }) });

/** /api/customer/wishlist: products the signed-in customer keeps for later. */
export const wishlistRoutes: FastifyPluginAsyncTypebox<{ wishlist: WishlistService }> = async (
  app,
  { wishlist },
) => {
  const tags = ['Customer account'];

  app.get(
    '/wishlist',
    {
      schema: {
        tags,
        operationId: 'listWishlist',
        summary: 'My wishlist: the products (active ones), most recent first',
        response: { 200: DataEnvelope(Type.Array(StorefrontProductSummary)) },
      },
    },
    async (request) => ({ data: await wishlist.list(request.ctx.storeId, request.ctx.actor.id) }),
  );

  app.post(
    '/wishlist',
    {
      schema: {
        tags,
        operationId: 'addToWishlist',
        summary: 'Add a product (idempotent: 201 when added, 200 when it was already there)',
        body: ProductBody,
        response: { 200: DataEnvelope(Wishlisted), 201: DataEnvelope(Wishlisted) },
      },
    },
    async (request, reply) => {
      const result = await wishlist.add(request.ctx.storeId, request.ctx.actor.id, request.body.productId);
      return reply
        .code(result.added ? 201 : 200)
        .send({ data: { productId: result.productId, wishlisted: result.wishlisted } });
    },
  );

  app.patch(
    '/wishlist',
    {
      schema: {
        tags,
        operationId: 'toggleWishlistItem',
        summary: 'Toggle a product: added if absent, removed if present',
        body: ProductBody,
        response: { 200: DataEnvelope(Wishlisted) },
      },
    },
    async (request) => ({
      data: await wishlist.toggle(request.ctx.storeId, request.ctx.actor.id, request.body.productId),
    }),
  );

  app.get(
    '/wishlist/:productId',
    {
      schema: {
        tags,
        operationId: 'getWishlistItem',
        summary: 'Whether a product is on my wishlist',
        params: ProductParams,
        response: { 200: DataEnvelope(Wishlisted) },
      },
    },
    async (request) => ({
      data: await wishlist.check(request.ctx.storeId, request.ctx.actor.id, request.params.productId),
    }),
  );

  app.delete(
    '/wishlist/:productId',
    {
      schema: {
        tags,
        operationId: 'removeFromWishlist',
        summary: 'Remove a product from my wishlist',
        params: ProductParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await wishlist.remove(request.ctx.storeId, request.ctx.actor.id, request.params.productId);
      return reply.code(204).send(null);
    },
  );
};
