import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  DataEnvelope,
  IdParams,
  ListEnvelope,
  listEnvelope,
  PageQuery,
  pageOf,
} from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { ifMatchOf, withEtag } from '../../platform/http/etag.js';
import {
  DeliveryAttempt,
  DeliveryListQuery,
  DeliveryParams,
  TestBody,
  Webhook,
  WebhookCreateBody,
  WebhookUpdateBody,
  WebhookWithSecret,
} from './webhooks.schemas.js';
import { attemptForMerchant, webhookForMerchant } from './webhooks.serializers.js';
import type { WebhooksService } from './webhooks.service.js';

export const webhooksRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhooksService }> = async (
  app,
  { webhooks },
) => {
  const tags = ['Webhooks'];

  app.get(
    '/webhooks',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        operationId: 'listWebhooks',
        summary: 'List webhooks',
        querystring: Type.Object(PageQuery),
        response: { 200: ListEnvelope(Webhook) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { rows, total } = await webhooks.list(request.ctx, page);
      return listEnvelope(rows.map(webhookForMerchant), page, total);
    },
  );

  app.post(
    '/webhooks',
    {
      config: {
        scope: 'webhooks:write',
        idempotent: {
          async render(request, id) {
            const { row, secret } = await webhooks.created(request.ctx, id);
            return { data: { ...webhookForMerchant(row), secret } };
          },
        },
      },
      schema: {
        tags,
        operationId: 'createWebhook',
        summary: 'Create a webhook (its signing secret is returned only here)',
        body: WebhookCreateBody,
        response: { 201: DataEnvelope(WebhookWithSecret) },
      },
    },
    async (request, reply) => {
      const { row, secret } = await webhooks.create(request.ctx, request.body);
      return reply.code(201).send({ data: { ...webhookForMerchant(row), secret } });
    },
  );

  app.get(
    '/webhooks/:id',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        operationId: 'getWebhook',
        summary: 'Get a webhook',
        'x-etag': true,
        params: IdParams,
        response: { 200: DataEnvelope(Webhook) },
      },
    },
    async (request, reply) => ({
      data: withEtag(reply, webhookForMerchant(await webhooks.get(request.ctx, request.params.id))),
    }),
  );

  app.patch(
    '/webhooks/:id',
    {
      config: { scope: 'webhooks:write' },
      schema: {
        tags,
        operationId: 'updateWebhook',
        summary: 'Update a webhook; `active: true` re-enables a disabled one',
        params: IdParams,
        body: WebhookUpdateBody,
        response: { 200: DataEnvelope(Webhook), ...errorResponses(412) },
      },
    },
    async (request, reply) => {
      const ifMatch = ifMatchOf(request);
      const row = await webhooks.update(request.ctx, request.params.id, request.body, ifMatch);
      return { data: withEtag(reply, webhookForMerchant(row)) };
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      config: { scope: 'webhooks:write' },
      schema: {
        tags,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook',
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await webhooks.remove(request.ctx, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      config: {
        scope: 'webhooks:write',
        audit: { action: 'webhook.rotate_secret', resourceType: 'webhook' },
      },
      schema: {
        tags,
        operationId: 'rotateWebhookSecret',
        summary: 'Replace the signing secret (the new one is returned only here)',
        params: IdParams,
        response: { 200: DataEnvelope(WebhookWithSecret) },
      },
    },
    async (request) => {
      const { row, secret } = await webhooks.rotateSecret(request.ctx, request.params.id);
      return { data: { ...webhookForMerchant(row), secret } };
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'Delivery log: one entry per attempt, newest first',
        params: IdParams,
        querystring: DeliveryListQuery,
        response: { 200: ListEnvelope(DeliveryAttempt) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { rows, total } = await webhooks.deliveries(
        request.ctx,
        request.params.id,
        { status: request.query.status },
        page,
      );
      return listEnvelope(rows.map(attemptForMerchant), page, total);
    },
  );

  app.post(
    '/webhooks/:id/test',
    {
      config: { scope: 'webhooks:write', audit: { action: 'webhook.test', resourceType: 'webhook' } },
      schema: {
        tags,
        operationId: 'sendTestWebhook',
        summary: 'Send a test delivery of a subscribed event now (sample data, `"test": true`)',
        params: IdParams,
        body: TestBody,
        response: { 200: DataEnvelope(DeliveryAttempt) },
      },
    },
    async (request) => ({
      data: attemptForMerchant(await webhooks.sendTest(request.ctx, request.params.id, request.body.event)),
    }),
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/retry',
    {
      config: { scope: 'webhooks:write' },
      schema: {
        tags,
        operationId: 'retryWebhookDelivery',
        summary: 'Send a delivery again now',
        params: DeliveryParams,
        response: { 200: DataEnvelope(DeliveryAttempt), ...errorResponses(409) },
      },
    },
    async (request) => ({
      data: attemptForMerchant(
        await webhooks.retry(request.ctx, request.params.id, request.params.deliveryId),
      ),
    }),
  );
};
