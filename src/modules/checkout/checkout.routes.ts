import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../platform/db/database.js';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { installIdempotency } from '../../platform/http/idempotency.js';
import { CustomerOrder, orderForCustomer } from '../orders/index.js';
import { SlugParams } from '../storefront/index.js';
import type { StoresService } from '../stores/index.js';
import { CheckoutBody, CheckoutQuote } from './checkout.schemas.js';
import type { CheckoutService } from './checkout.service.js';

export interface CheckoutRoutesDeps {
  db: Db;
  stores: StoresService;
  checkout: CheckoutService;
}

/** /api/storefront/{slug}/checkout…: no authentication; the store is the one of the slug. */
export const checkoutRoutes: FastifyPluginAsyncTypebox<CheckoutRoutesDeps> = async (app, deps) => {
  const { stores, checkout } = deps;
  // The store of the slug is the tenant of the request (and of its Idempotency-Key).
  app.addHook('preValidation', async (request) => {
    const { slug } = request.params as { slug: string };
    const store = await stores.getActiveStoreBySlug(slug);
    request.ctx = {
      storeId: store.id,
      actor: { kind: 'system', id: 'storefront' },
      source: 'system',
      scopes: [],
    };
  });
  installIdempotency(app as unknown as FastifyInstance, deps.db);

  app.post(
    '/:slug/checkout/quote',
    {
      schema: {
        tags: ['Checkout'],
        operationId: 'quoteCheckout',
        security: [],
        summary: 'Price a cart (subtotal, discount, shipping, tax, total); creates nothing',
        params: SlugParams,
        body: CheckoutBody,
        response: { 200: DataEnvelope(CheckoutQuote) },
      },
    },
    async (request) => ({ data: await checkout.quote(request.ctx.storeId, request.body) }),
  );

  app.post(
    '/:slug/checkout',
    {
      config: { idempotent: true },
      schema: {
        tags: ['Checkout'],
        operationId: 'checkout',
        security: [],
        summary: 'Place an order',
        description:
          'One transaction: stock is taken atomically (409 insufficient_stock when short), the coupon use is counted, the payment is taken. `manual` leaves the order pending and unpaid; `test_card` with `tok_visa` pays it, `tok_decline` is 402 and nothing is created. Honours `Idempotency-Key`.',
        params: SlugParams,
        body: CheckoutBody,
        response: { 201: DataEnvelope(CustomerOrder), ...errorResponses(402, 409) },
      },
    },
    async (request, reply) => {
      const placed = await checkout.checkout(request.ctx.storeId, request.body);
      return reply.code(201).send({ data: orderForCustomer(placed) });
    },
  );
};
