import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ListEnvelope, listEnvelope, pageOf } from '../../platform/http/envelopes.js';
import type { NotificationLog } from './notifications.log.js';
import { NotificationLogQuery, NotificationRecord } from './notifications.schemas.js';
import { notificationRecord } from './notifications.serializers.js';

/** GET /api/v1/notifications: the store's e-mails, newest first (contract §13). */
export const notificationLogRoutes: FastifyPluginAsyncTypebox<{ log: NotificationLog }> = async (
  app,
  { log },
) => {
  app.get(
    '/notifications',
    {
      config: { scope: 'settings:read' },
      schema: {
        tags: ['Notifications'],
        operationId: 'listNotifications',
        summary: "The store's e-mails, newest first: to whom, what became of them",
        description:
          'Filters: `kind`, `status` (pending, sent, failed) and `order_id` (the e-mails of one order). `subject` is null until the worker first renders the message.',
        querystring: NotificationLogQuery,
        response: { 200: ListEnvelope(NotificationRecord) },
      },
    },
    async (request) => {
      const { kind, status, order_id: orderId } = request.query;
      const page = pageOf(request.query);
      const { rows, total } = await log.list(request.ctx, { kind, status, orderId }, page);
      return listEnvelope(rows.map(notificationRecord), page, total);
    },
  );
};
