import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { etagOf, ifMatchOf } from '../../platform/http/etag.js';
import { StripeKeysBody, StripeSettings, StripeWebhookReceipt } from './payments.schemas.js';
import type { PaymentsService } from './payments.service.js';

/** /api/v1/payments/stripe: a store's Stripe account (contract §9). */
export const paymentsRoutes: FastifyPluginAsyncTypebox<{ payments: PaymentsService }> = async (
  app,
  { payments },
) => {
  const tags = ['Payments'];

  app.get(
    '/payments/stripe',
    {
      config: { scope: 'settings:read' },
      schema: {
        tags,
        operationId: 'getStripeSettings',
        summary: "The store's Stripe connection (never its secrets) and the webhook URL to give Stripe",
        'x-etag': true,
        response: { 200: DataEnvelope(StripeSettings) },
      },
    },
    async (request, reply) => {
      reply.header('etag', etagOf(await payments.stripeVersion(request.ctx)));
      return { data: await payments.stripeSettings(request.ctx) };
    },
  );

  app.put(
    '/payments/stripe',
    {
      config: { scope: 'settings:write', ownerOnly: true },
      schema: {
        tags,
        operationId: 'connectStripe',
        summary: 'Connect Stripe: the secret and publishable keys and the webhook signing secret',
        description:
          'Owners alone manage payments: a staff member is refused even with `settings:write`. Key shapes are checked (`sk_…`/`rk_…`, `pk_…` of the same mode, `whsec_…`); the secret key and the webhook secret are stored encrypted with `APP_SECRET` and never returned or logged. Sending new keys replaces the old ones.',
        body: StripeKeysBody,
        response: { 200: DataEnvelope(StripeSettings), ...errorResponses(412) },
      },
    },
    async (request, reply) => {
      const data = await payments.connectStripe(request.ctx, request.body, ifMatchOf(request));
      reply.header('etag', etagOf(await payments.stripeVersion(request.ctx)));
      return { data };
    },
  );

  app.delete(
    '/payments/stripe',
    {
      config: { scope: 'settings:write', ownerOnly: true },
      schema: {
        tags,
        operationId: 'disconnectStripe',
        summary: 'Disconnect Stripe: checkout no longer offers it; payments already started still settle',
        description: 'Owners alone manage payments: a staff member is refused even with `settings:write`.',
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await payments.disconnectStripe(request.ctx);
      return reply.code(204).send(null);
    },
  );
};

/**
 * POST /api/payments/stripe/{slug}/webhook: Stripe's events for one store. The body is read as the
 * exact text Stripe signed (no JSON parsing before the signature is checked).
 */
export const stripeWebhookRoutes: FastifyPluginAsyncTypebox<{ payments: PaymentsService }> = async (
  app,
  { payments },
) => {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: 1024 * 1024 },
    (_req, body, done) => done(null, body),
  );
  app.post(
    '/:slug/webhook',
    {
      schema: {
        tags: ['Payments'],
        operationId: 'receiveStripeEvent',
        security: [],
        summary: "Stripe's webhook endpoint for a store (give its URL to Stripe's dashboard)",
        description:
          "Verifies `Stripe-Signature` with the store's webhook secret (5 minutes tolerance; 400 otherwise, nothing changes). Each event id is processed once: a replay answers 200 and does nothing. `payment_intent.succeeded` pays the order; `payment_intent.payment_failed` and `payment_intent.canceled` cancel it with its stock back (reason `payment_failed`); `charge.refunded` records refunds made in Stripe's dashboard (listed from Stripe, never more than was paid); other events are ignored. An event is believed only for the PaymentIntent stored on the order, in its currency and (for a success) its whole amount; any other answers 200 with outcome `ignored`, changes nothing and is logged.",
        params: Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) }),
        headers: Type.Object({ 'stripe-signature': Type.Optional(Type.String()) }),
        response: { 200: DataEnvelope(StripeWebhookReceipt), ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const outcome = await payments.receiveStripeEvent(
        request.params.slug,
        typeof request.body === 'string' ? request.body : '',
        request.headers['stripe-signature'],
      );
      return { data: { received: true, outcome } };
    },
  );
};
