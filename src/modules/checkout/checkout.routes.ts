import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../platform/db/database.js';
import type { CustomerAuthOptions } from '../../platform/http/customer-auth.js';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { installIdempotency } from '../../platform/http/idempotency.js';
import {
  attachStorefrontSession,
  customerOf,
  OPTIONAL_CUSTOMER_SESSION,
} from '../../platform/http/storefront-session.js';
import { orderForCustomer } from '../orders/index.js';
import { SlugParams } from '../storefront/index.js';
import type { StoresService } from '../stores/index.js';
import { CheckoutBody, CheckoutQuote, PlacedOrder } from './checkout.schemas.js';
import type { CheckoutResult, CheckoutService } from './checkout.service.js';

/** The order as checkout answers it: with the buyer's payment session when one is still to be paid. */
export const placedOrder = ({ placed, payment }: CheckoutResult) => ({
  ...orderForCustomer(placed),
  ...(payment ? { payment } : {}),
});

/** 503 when the card payment provider cannot be reached (the order is then cancelled, stock back). */
export const PROVIDER_UNAVAILABLE = {
  503: {
    $ref: 'ErrorBody#',
    description:
      '`unavailable`: the payment provider (Stripe) cannot be reached; the order was cancelled and its stock released',
  },
};

export interface CheckoutRoutesDeps {
  db: Db;
  stores: StoresService;
  checkout: CheckoutService;
  /** Sessions are optional here: with one, the order (and the quote's coupon checks) are its customer's. */
  customerAuth: CustomerAuthOptions;
  secureCookies: boolean;
}

export const checkoutRoutes: FastifyPluginAsyncTypebox<CheckoutRoutesDeps> = async (app, deps) => {
  const { stores, checkout } = deps;
  attachStorefrontSession(app as unknown as FastifyInstance, {
    storeIdOfSlug: async (slug) => (await stores.getActiveStoreBySlug(slug)).id,
    customerAuth: deps.customerAuth,
    secureCookies: deps.secureCookies,
  });
  installIdempotency(app as unknown as FastifyInstance, deps.db);

  app.post(
    '/:slug/checkout/quote',
    {
      schema: {
        tags: ['Checkout'],
        operationId: 'quoteCheckout',
        security: OPTIONAL_CUSTOMER_SESSION,
        summary: 'Price a cart (subtotal, discount, shipping, tax, total); creates nothing',
        params: SlugParams,
        body: CheckoutBody,
        response: { 200: DataEnvelope(CheckoutQuote), ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => ({
      data: await checkout.quote(request.ctx.storeId, request.body, customerOf(request)),
    }),
  );

  app.post(
    '/:slug/checkout',
    {
      config: {
        idempotent: {
          render: async (request, id) => ({ data: placedOrder(await checkout.placed(request.ctx, id)) }),
        },
      },
      schema: {
        tags: ['Checkout'],
        operationId: 'checkout',
        security: OPTIONAL_CUSTOMER_SESSION,
        summary: 'Place an order',
        description:
          "One transaction: stock is taken atomically (409 insufficient_stock when short), the coupon use is counted, the payment is taken. `manual` leaves the order pending and unpaid; `test_card` with `tok_visa` pays it, `tok_decline` is 402 and nothing is created. `stripe` (400 unless the store connected Stripe) leaves the order pending with payment_status `pending` and its stock held, then, after commit, creates a Stripe PaymentIntent: the order carries `payment` with its `clientSecret` for Stripe's Payment Element. The order is paid by Stripe's webhook, or cancelled when the payment fails or is not made within `PAYMENT_HOLD_MINUTES`. When Stripe cannot be reached the answer is 503 and the order is cancelled, its stock released. Honours `Idempotency-Key`.",
        params: SlugParams,
        body: CheckoutBody,
        response: {
          201: DataEnvelope(PlacedOrder),
          ...errorResponses(400, 401, 402, 403, 409, 429),
          ...PROVIDER_UNAVAILABLE,
        },
      },
    },
    async (request, reply) => {
      const result = await checkout.checkout(request.ctx, request.body, customerOf(request));
      return reply.code(201).send({ data: placedOrder(result) });
    },
  );
};
