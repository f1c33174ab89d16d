import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DataEnvelope, IdParams } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { invalidRequest } from '../../platform/http/errors.js';
import { ifMatchOf, withEtag } from '../../platform/http/etag.js';
import { parseMoney } from '../../platform/http/money-input.js';
import { currencyDecimals } from '../../platform/money.js';
import { changedStoreColors } from './store-colors.js';
import {
  ApiKey,
  ApiKeyCreateBody,
  CreatedApiKey,
  StoreSettings,
  StoreSettingsBody,
} from './stores.schemas.js';
import { apiKeyForAdmin, createdApiKeyForAdmin, storeSettingsForAdmin } from './stores.serializers.js';
import type { StoresService } from './stores.service.js';

/**
 * The dashboard's store settings and API keys. The admin module registers these behind the
 * dashboard's sign-in, under /api/admin (see adminRoutes' signedInRoutes).
 */
export const storesRoutes: FastifyPluginAsyncTypebox<{ stores: StoresService }> = async (app, { stores }) => {
  const tags = ['Admin'];

  app.get(
    '/store',
    {
      schema: {
        tags,
        operationId: 'getStoreSettings',
        summary: 'Store settings',
        'x-etag': true,
        response: { 200: DataEnvelope(StoreSettings) },
      },
    },
    async (request, reply) => ({
      data: withEtag(reply, storeSettingsForAdmin(await stores.getSettings(request.ctx.storeId))),
    }),
  );

  app.patch(
    '/store',
    {
      schema: {
        tags,
        operationId: 'updateStoreSettings',
        summary:
          'Change store settings (profile, colours, currency, timezone, shipping, tax, low stock, custom domain)',
        body: StoreSettingsBody,
        response: { 200: DataEnvelope(StoreSettings), ...errorResponses(409, 412) },
      },
    },
    async (request, reply) => {
      const ifMatch = ifMatchOf(request);
      const body = request.body;
      const current = await stores.getStore(request.ctx.storeId);
      const decimals = currencyDecimals(current.currency);
      const { shipping_flat_rate, free_shipping_threshold, tax_rate, colors, ...rest } = body;
      const taxRateBps = tax_rate === undefined ? undefined : parseMoney(tax_rate, 'tax_rate', 2);
      if (taxRateBps !== undefined && taxRateBps > 10_000)
        throw invalidRequest('tax_rate must be at most 100', [{ field: 'tax_rate', message: 'at most 100' }]);
      const store = await stores.updateSettings(
        request.ctx.storeId,
        {
          ...rest,
          ...(colors ? { colors: changedStoreColors(current.colors, colors) } : {}),
          ...(shipping_flat_rate !== undefined
            ? { shipping_flat_rate: parseMoney(shipping_flat_rate, 'shipping_flat_rate', decimals) }
            : {}),
          ...(free_shipping_threshold !== undefined
            ? {
                free_shipping_threshold:
                  free_shipping_threshold === null
                    ? null
                    : parseMoney(free_shipping_threshold, 'free_shipping_threshold', decimals),
              }
            : {}),
          ...(taxRateBps !== undefined ? { tax_rate_bps: taxRateBps } : {}),
        },
        ifMatch,
      );
      return { data: withEtag(reply, storeSettingsForAdmin(store)) };
    },
  );

  app.get(
    '/api-keys',
    {
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
