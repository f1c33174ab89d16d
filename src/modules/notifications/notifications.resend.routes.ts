import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DataEnvelope, IdParams } from '../../platform/http/envelopes.js';
import type { NotificationResender } from './notifications.resend.js';
import { NotificationRecord } from './notifications.schemas.js';
import { notificationRecord } from './notifications.serializers.js';

/** POST /api/v1/notifications/{id}/resend (contract §13). */
export const notificationResendRoutes: FastifyPluginAsyncTypebox<{ resender: NotificationResender }> = async (
  app,
  { resender },
) => {
  app.post(
    '/notifications/:id/resend',
    {
      config: { scope: 'settings:write' },
      schema: {
        tags: ['Notifications'],
        operationId: 'resendNotification',
        summary: 'Send an e-mail of the log again',
        description:
          'Queues a new message with the same kind, recipient, order and records (`resend_of` names the original), rendered and sent by the worker like any other, with a Message-ID of its own. Answers the new log record, `pending`.',
        params: IdParams,
        response: { 202: DataEnvelope(NotificationRecord) },
      },
    },
    async (request, reply) => {
      const row = await resender.resend(request.ctx, request.params.id);
      return reply.code(202).send({ data: notificationRecord(row) });
    },
  );
};
