import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { ifMatchOf } from '../../platform/http/etag.js';
import {
  KindParams,
  NotificationRecord,
  NotificationTemplate,
  PreviewBody,
  RenderedMessage,
  TemplateUpdate,
  TestSendBody,
} from './notifications.schemas.js';
import { type TemplatesService, templateEtag } from './templates.service.js';

const tags = ['Notifications'];
const BASE = '/notifications/templates';
const LIQUID =
  "Parts are Liquid (liquidjs): the variables of the kind are listed in `variables` (docs/notifications.md). Values are HTML-escaped in `html` unless followed by `| raw`; `subject` and `text` are plain text. `| money` formats an amount in the order's currency. A part that does not parse or render (unknown tag or filter, unclosed tag, a loop past the time limit) is 400 naming the part and the line, and nothing is stored.";

function withTemplateEtag(reply: FastifyReply, template: NotificationTemplate) {
  reply.header('etag', templateEtag(template));
  return template;
}

/** /api/v1/notifications/templates (contract §13): scopes settings:read and settings:write. */
export const notificationTemplatesRoutes: FastifyPluginAsyncTypebox<{ templates: TemplatesService }> = async (
  app,
  { templates },
) => {
  app.get(
    BASE,
    {
      config: { scope: 'settings:read' },
      schema: {
        tags,
        operationId: 'listNotificationTemplates',
        summary: 'The e-mail templates of every kind: on or off, subject, HTML and text parts',
        response: { 200: DataEnvelope(Type.Array(NotificationTemplate)) },
      },
    },
    async (request) => ({ data: await templates.list(request.ctx.storeId) }),
  );

  app.get(
    `${BASE}/:kind`,
    {
      config: { scope: 'settings:read' },
      schema: {
        tags,
        operationId: 'getNotificationTemplate',
        summary: 'The e-mail template of a kind',
        params: KindParams,
        'x-etag': true,
        response: { 200: DataEnvelope(NotificationTemplate) },
      },
    },
    async (request, reply) => ({
      data: withTemplateEtag(reply, await templates.get(request.ctx.storeId, request.params.kind)),
    }),
  );

  app.put(
    `${BASE}/:kind`,
    {
      config: { scope: 'settings:write' },
      schema: {
        tags,
        operationId: 'updateNotificationTemplate',
        summary: 'Change a kind: turn it on or off, word its subject, HTML or text',
        description: `Only the fields sent change. ${LIQUID} \`If-Match\` with the ETag of a read refuses a stale write (412).`,
        params: KindParams,
        body: TemplateUpdate,
        response: { 200: DataEnvelope(NotificationTemplate), ...errorResponses(412) },
      },
    },
    async (request, reply) => {
      const { storeId } = request.ctx;
      const template = await templates.update(storeId, request.params.kind, request.body, ifMatchOf(request));
      return { data: withTemplateEtag(reply, template) };
    },
  );

  app.delete(
    `${BASE}/:kind`,
    {
      config: { scope: 'settings:write' },
      schema: {
        tags,
        operationId: 'restoreNotificationTemplate',
        summary: "Restore a kind's default subject, HTML and text (whether it is on stays as it is)",
        params: KindParams,
        // Answers the template as it now is, with its ETag (as GET and PUT do).
        'x-etag': true,
        response: { 200: DataEnvelope(NotificationTemplate) },
      },
    },
    async (request, reply) => ({
      data: withTemplateEtag(reply, await templates.restore(request.ctx.storeId, request.params.kind)),
    }),
  );

  app.post(
    `${BASE}/:kind/preview`,
    {
      // A preview stores nothing.
      config: { scope: 'settings:write', audit: false },
      schema: {
        tags,
        operationId: 'previewNotificationTemplate',
        summary: "Render a kind with the store's latest order (or sample data)",
        description: `Parts in the body are rendered instead of the saved ones (nothing is stored): the editor's live preview. ${LIQUID}`,
        params: KindParams,
        body: Type.Optional(PreviewBody),
        response: { 200: DataEnvelope(RenderedMessage) },
      },
    },
    async (request) => ({
      data: await templates.preview(request.ctx.storeId, request.params.kind, request.body ?? {}),
    }),
  );

  app.post(
    `${BASE}/:kind/test`,
    {
      config: {
        scope: 'settings:write',
        audit: { action: 'notification_template.test', resourceType: 'notification_template' },
      },
      schema: {
        tags,
        operationId: 'sendTestNotification',
        summary: 'Send one e-mail of a kind to an address, rendered as the preview',
        description:
          'Queued (202) and sent by the worker like any e-mail; the answer is its record in the log (`GET /api/v1/notifications`). Sent even when the kind is off.',
        params: KindParams,
        body: TestSendBody,
        response: { 202: DataEnvelope(NotificationRecord) },
      },
    },
    async (request, reply) => {
      const record = await templates.sendTest(request.ctx.storeId, request.params.kind, request.body.to);
      return reply.code(202).send({ data: record });
    },
  );
};
