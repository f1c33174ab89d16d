import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { AnalyticsQuery, AnalyticsReport } from './analytics.schemas.js';
import { reportForMerchant } from './analytics.serializers.js';
import type { AnalyticsService } from './analytics.service.js';

export const analyticsRoutes: FastifyPluginAsyncTypebox<{ analytics: AnalyticsService }> = async (
  app,
  { analytics },
) => {
  app.get(
    '/analytics',
    {
      config: { scope: 'analytics:read' },
      schema: {
        tags: ['Analytics'],
        operationId: 'getAnalytics',
        summary: 'Store statistics for a date range in the store timezone, with the previous period',
        querystring: AnalyticsQuery,
        response: { 200: DataEnvelope(AnalyticsReport) },
      },
    },
    async (request) => ({ data: reportForMerchant(await analytics.report(request.ctx, request.query)) }),
  );
};
