import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { CustomerAuthOptions } from '../../platform/http/customer-auth.js';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import {
  attachStorefrontSession,
  customerOf,
  OPTIONAL_CUSTOMER_SESSION,
} from '../../platform/http/storefront-session.js';
import { PlacedOrder, PROVIDER_UNAVAILABLE, placedOrder } from '../checkout/index.js';
import { SlugParams } from '../storefront/index.js';
import type { StoresService } from '../stores/index.js';
import {
  Cart,
  CartItemInput,
  CartItemParams,
  CartParams,
  CompleteCartBody,
  CreateCartBody,
  UpdateCartBody,
  UpdateCartItemBody,
} from './carts.schemas.js';
import { cartForStorefront } from './carts.serializers.js';
import type { CartsService } from './carts.service.js';

export interface CartsRoutesDeps {
  stores: StoresService;
  carts: CartsService;
  customerAuth: CustomerAuthOptions;
  secureCookies: boolean;
}

/**
 * /api/storefront/{slug}/carts…: contract §9. The store is the one of the slug; a customer session
 * (cookie or Bearer) is optional and, when it is this store's, links every cart it creates or
 * touches to its customer. Answers are `no-store`, the default of every uncached route.
 */
export const cartsRoutes: FastifyPluginAsyncTypebox<CartsRoutesDeps> = async (app, deps) => {
  const { stores, carts } = deps;
  attachStorefrontSession(app as unknown as FastifyInstance, {
    storeIdOfSlug: async (slug) => (await stores.getActiveStoreBySlug(slug)).id,
    customerAuth: deps.customerAuth,
    secureCookies: deps.secureCookies,
  });

  const tags = ['Carts'];
  const security = OPTIONAL_CUSTOMER_SESSION;
  const common = errorResponses(401, 403, 429);

  app.post(
    '/:slug/carts',
    {
      schema: {
        tags,
        operationId: 'createCart',
        security,
        summary: 'Create a cart (optionally with lines and an e-mail)',
        description:
          'The answer holds the cart id: an unguessable token that is the only permission the cart needs. Lines of the same product and variant merge. Nothing is reserved: a quantity above the tracked stock is 409 `insufficient_stock`; an unknown, draft or archived product is 400.',
        params: SlugParams,
        body: CreateCartBody,
        response: { 201: DataEnvelope(Cart), ...common, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const view = await carts.create(request.ctx, request.body, customerOf(request));
      return reply.code(201).send({ data: cartForStorefront(view) });
    },
  );

  app.get(
    '/:slug/carts/:cartId',
    {
      schema: {
        tags,
        operationId: 'getCart',
        security,
        summary: 'A cart, priced from the current catalogue and discounts',
        description: 'Unknown or expired (30 days after its last change) carts are 404.',
        params: CartParams,
        response: { 200: DataEnvelope(Cart), ...common },
      },
    },
    async (request) => ({
      data: cartForStorefront(await carts.get(request.ctx, request.params.cartId, customerOf(request))),
    }),
  );

  app.post(
    '/:slug/carts/:cartId/items',
    {
      schema: {
        tags,
        operationId: 'addCartItem',
        security,
        summary: 'Add a line (the same product and variant merge into one line)',
        params: CartParams,
        body: CartItemInput,
        response: { 200: DataEnvelope(Cart), ...common, ...errorResponses(409) },
      },
    },
    async (request) => ({
      data: cartForStorefront(
        await carts.addItem(request.ctx, request.params.cartId, request.body, customerOf(request)),
      ),
    }),
  );

  app.patch(
    '/:slug/carts/:cartId/items/:itemId',
    {
      schema: {
        tags,
        operationId: 'updateCartItem',
        security,
        summary: "Set a line's quantity (0 removes it)",
        params: CartItemParams,
        body: UpdateCartItemBody,
        response: { 200: DataEnvelope(Cart), ...common, ...errorResponses(409) },
      },
    },
    async (request) => {
      const { cartId, itemId } = request.params;
      const view = await carts.setItemQuantity(
        request.ctx,
        cartId,
        itemId,
        request.body.quantity,
        customerOf(request),
      );
      return { data: cartForStorefront(view) };
    },
  );

  app.delete(
    '/:slug/carts/:cartId/items/:itemId',
    {
      schema: {
        tags,
        operationId: 'removeCartItem',
        security,
        summary: 'Remove a line',
        params: CartItemParams,
        response: { 200: DataEnvelope(Cart), ...common, ...errorResponses(409) },
      },
    },
    async (request) => {
      const { cartId, itemId } = request.params;
      return {
        data: cartForStorefront(await carts.removeItem(request.ctx, cartId, itemId, customerOf(request))),
      };
    },
  );

  app.patch(
    '/:slug/carts/:cartId',
    {
      schema: {
        tags,
        operationId: 'updateCart',
        security,
        summary: 'Set the e-mail, shipping address or coupon (`couponCode: null` removes it)',
        description: 'A coupon that does not apply to the cart is 400 naming why.',
        params: CartParams,
        body: UpdateCartBody,
        response: { 200: DataEnvelope(Cart), ...common, ...errorResponses(409) },
      },
    },
    async (request) => ({
      data: cartForStorefront(
        await carts.update(request.ctx, request.params.cartId, request.body, customerOf(request)),
      ),
    }),
  );

  app.post(
    '/:slug/carts/:cartId/complete',
    {
      schema: {
        tags,
        operationId: 'completeCart',
        security,
        summary: 'Turn the cart into an order (exactly once)',
        description:
          "As POST /checkout with the cart's lines, e-mail, address and coupon, and the same payment methods: 201 with the order (with `stripe`, its `payment` session for Stripe's Payment Element); `tok_decline` is 402 and nothing is created (the cart stays open); Stripe unreachable is 503 with the order cancelled. A completed cart is closed: completing it again answers the same order with 200. A cart without an e-mail, or without lines, is 400.",
        params: CartParams,
        body: CompleteCartBody,
        response: {
          200: DataEnvelope(PlacedOrder),
          201: DataEnvelope(PlacedOrder),
          ...common,
          ...errorResponses(402, 409),
          ...PROVIDER_UNAVAILABLE,
        },
      },
    },
    async (request, reply) => {
      const result = await carts.complete(
        request.ctx,
        request.params.cartId,
        request.body,
        customerOf(request),
      );
      return reply.code(result.created ? 201 : 200).send({ data: placedOrder(result) });
    },
  );
};

/** GET /api/customer/cart: the signed-in customer's latest open cart (phone and laptop share it). */
export const customerCartRoutes: FastifyPluginAsyncTypebox<{ carts: CartsService }> = async (
  app,
  { carts },
) => {
  app.get(
    '/cart',
    {
      schema: {
        tags: ['Customer account'],
        operationId: 'getMyCart',
        summary: 'My latest open cart (404 when I have none)',
        response: { 200: DataEnvelope(Cart), ...errorResponses(404) },
      },
    },
    async (request) => ({
      data: cartForStorefront(await carts.latestOf(request.ctx, request.ctx.actor.id)),
    }),
  );
};
