import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { CustomerAuthOptions } from '../../platform/http/customer-auth.js';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import {
  attachStorefrontSession,
  customerOf,
  OPTIONAL_CUSTOMER_SESSION,
} from '../../platform/http/storefront-session.js';
import type { StoresService } from '../stores/index.js';
import type { BackInStockService } from './back-in-stock.service.js';
import { NotifyMeBody } from './notifications.schemas.js';

const NotifyMeParams = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 100 }),
  productSlug: Type.String({ minLength: 1, maxLength: 200 }),
});

export interface BackInStockRoutesDeps {
  stores: StoresService;
  backInStock: BackInStockService;
  customerAuth: CustomerAuthOptions;
  secureCookies: boolean;
}

/** POST /api/storefront/{slug}/products/{productSlug}/notify-me (contract §13, back in stock). */
export const backInStockRoutes: FastifyPluginAsyncTypebox<BackInStockRoutesDeps> = async (app, deps) => {
  const { stores, backInStock } = deps;
  // A signed-in shopper's sign-up names them: their devices get a push when it is back.
  attachStorefrontSession(app as unknown as FastifyInstance, {
    storeIdOfSlug: async (slug) => (await stores.getActiveStoreBySlug(slug)).id,
    customerAuth: deps.customerAuth,
    secureCookies: deps.secureCookies,
  });

  app.post(
    '/:slug/products/:productSlug/notify-me',
    {
      schema: {
        tags: ['Storefront'],
        operationId: 'notifyMeWhenBack',
        security: OPTIONAL_CUSTOMER_SESSION,
        summary: 'Ask for an e-mail when a sold-out product (or one of its variants) is back in stock',
        description:
          'Answers 202 `{ subscribed: true }` for any published product (and variant of it), whatever its stock, whether or not the e-mail is a customer, and whether or not it was signed up already (one sign-up per e-mail, any case, and product or variant). When its tracked stock goes from 0 to more than 0 the e-mail is queued and the sign-up ends; a sign-up without `variantId` answers any variant of the product coming back. With a customer session of the store, that customer also gets a push on their devices (preference `backInStock`). A `variantId` not of the product is 400. At most 5 sign-ups per e-mail and 30 per client IP per 15 minutes (429, `Retry-After`).',
        params: NotifyMeParams,
        body: NotifyMeBody,
        response: {
          202: DataEnvelope(Type.Object({ subscribed: Type.Literal(true) })),
          ...errorResponses(401, 403, 429),
        },
      },
    },
    async (request, reply) => {
      const store = await stores.getActiveStoreBySlug(request.params.slug);
      await backInStock.subscribe(store, request.params.productSlug, request.body, {
        ip: request.ip,
        customerId: customerOf(request),
      });
      return reply.code(202).send({ data: { subscribed: true as const } });
    },
  );
};
