import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DataEnvelope, IdParams } from '../../platform/http/envelopes.js';
import { adminStoreSettingsRoutes } from './store-settings.routes.js';
import { ApiKey, ApiKeyCreateBody, CreatedApiKey } from './stores.schemas.js';
import { apiKeyForAdmin, createdApiKeyForAdmin } from './stores.serializers.js';
import type { StoresService } from './stores.service.js';

/**
 * The dashboard's store settings and API keys (owners only: contract §14). The admin module registers these behind the
 * dashboard's sign-in, under /api/admin (see adminRoutes' signedInRoutes).
 */
export const storesRoutes: FastifyPluginAsyncTypebox<{ stores: StoresService }> = async (app, { stores }) => {
  const tags = ['Admin'];

  await app.register(adminStoreSettingsRoutes, { stores });

  app.get(
    '/api-keys',
    {
      config: { ownerOnly: true },
      schema: {
        tags,
        operationId: 'listApiKeys',
        summary: 'API keys of the store',
        response: { 200: DataEnvelope(Type.Array(ApiKey)) },
      },
    },
    async (request) => ({ data: (await stores.listApiKeys(request.ctx.storeId)).map(apiKeyForAdmin) }),
  );

  app.post(
    '/api-keys',
    {
      config: { ownerOnly: true },
      schema: {
        tags,
        operationId: 'createApiKey',
        summary: 'Create an API key (the secret is shown only in this answer)',
        body: ApiKeyCreateBody,
        response: { 201: DataEnvelope(CreatedApiKey) },
      },
    },
    async (request, reply) => {
      const key = await stores.createApiKey(request.ctx.storeId, request.body);
      return reply.code(201).send({ data: createdApiKeyForAdmin(key) });
    },
  );

  app.delete(
    '/api-keys/:id',
    {
      config: { ownerOnly: true },
      schema: {
        tags,
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await stores.revokeApiKey(request.ctx.storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
