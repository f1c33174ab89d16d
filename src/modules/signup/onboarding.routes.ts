import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import type { OnboardingService } from './onboarding.service.js';

const Checklist = Type.Object({
  items: Type.Array(
    Type.Object({
      key: Type.Union([
        Type.Literal('add_product'),
        Type.Literal('set_up_shipping'),
        Type.Literal('connect_payments'),
        Type.Literal('view_shop'),
      ]),
      done: Type.Boolean(),
    }),
  ),
  done: Type.Boolean(),
});

/** /api/admin/onboarding: the dashboard's first-steps checklist (under the dashboard session guard). */
export const onboardingRoutes: FastifyPluginAsyncTypebox<{ onboarding: OnboardingService }> = async (
  app,
  { onboarding },
) => {
  const tags = ['Admin'];

  app.get(
    '/onboarding',
    {
      schema: {
        tags,
        operationId: 'getOnboardingChecklist',
        summary: "The store's first steps and whether each is done (derived live from its data)",
        response: { 200: DataEnvelope(Checklist) },
      },
    },
    async (request) => ({ data: await onboarding.checklist(request.ctx.storeId) }),
  );

  app.post(
    '/onboarding/view-shop',
    {
      schema: {
        tags,
        operationId: 'markShopViewed',
        summary: 'Tick "view your shop" off (the dashboard calls it from its link to the shop)',
        response: { 204: Type.Null() },
      },
      config: { audit: { action: 'onboarding.view_shop', resourceType: 'store' } },
    },
    async (request, reply) => {
      await onboarding.markShopViewed(request.ctx.storeId);
      return reply.code(204).send(null);
    },
  );
};
