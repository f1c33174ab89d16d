import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { ifMatchOf, withEtag } from '../../platform/http/etag.js';
import { type StoreSettingsInput, settingsPatchOf } from './store-settings.js';
import { ApiStoreSettings, StoreSettings, StoreSettingsBody } from './stores.schemas.js';
import { storeSettingsForAdmin, storeSettingsForApi } from './stores.serializers.js';
import type { StoresService } from './stores.service.js';

const SUMMARY =
  'Change store settings (profile, colours, currency, timezone, shipping, tax, low stock, custom domain)';
const DESCRIPTION =
  'Only the fields sent change. The currency changes only to one with the same minor units and only while the store has no order (409). `If-Match` with the ETag of a read refuses a stale write (412).';

/**
 * GET and PATCH /store for one audience: the dashboard (/api/admin, its session) or integrations
 * (/api/v1, scopes settings:read / settings:write). Both go through settingsPatchOf and the stores
 * service, so a rule added there holds for both; only the answer's shape and the scopes differ.
 */
function registerStoreSettings(
  app: FastifyInstance,
  stores: StoresService,
  audience: {
    tags: string[];
    operationIds: { get: string; patch: string };
    scopes?: { read: 'settings:read'; write: 'settings:write' };
    response: typeof StoreSettings | typeof ApiStoreSettings;
    serialize: typeof storeSettingsForAdmin | typeof storeSettingsForApi;
  },
) {
  const { tags, operationIds, scopes, response, serialize } = audience;
  app.get(
    '/store',
    {
      ...(scopes ? { config: { scope: scopes.read } } : {}),
      schema: {
        tags,
        operationId: operationIds.get,
        summary: 'Store settings',
        'x-etag': true,
        response: { 200: DataEnvelope(response) },
      },
    },
    async (request, reply) => ({
      data: withEtag(reply, serialize(await stores.getSettings(request.ctx.storeId))),
    }),
  );

  app.patch(
    '/store',
    {
      // The same action from the dashboard and the API (its operationIds differ).
      config: {
        ...(scopes ? { scope: scopes.write } : {}),
        audit: { action: 'store.update', resourceType: 'store' },
      },
      schema: {
        tags,
        operationId: operationIds.patch,
        summary: SUMMARY,
        description: DESCRIPTION,
        body: StoreSettingsBody,
        response: { 200: DataEnvelope(response), ...errorResponses(409, 412) },
      },
    },
    async (request, reply) => {
      const current = await stores.getStore(request.ctx.storeId);
      const patch = settingsPatchOf(request.body as StoreSettingsInput, current);
      const store = await stores.updateSettings(request.ctx.storeId, patch, ifMatchOf(request));
      return { data: withEtag(reply, serialize(store)) };
    },
  );
}

/** The dashboard's store settings (registered behind its sign-in under /api/admin). */
export const adminStoreSettingsRoutes: FastifyPluginAsyncTypebox<{ stores: StoresService }> = async (
  app,
  { stores },
) => {
  registerStoreSettings(app, stores, {
    tags: ['Admin'],
    operationIds: { get: 'getStoreSettings', patch: 'updateStoreSettings' },
    response: StoreSettings,
    serialize: storeSettingsForAdmin,
  });
};

/** /api/v1/store: the same settings for integrations (contract §12), snake_case. */
export const storeApiRoutes: FastifyPluginAsyncTypebox<{ stores: StoresService }> = async (
  app,
  { stores },
) => {
  registerStoreSettings(app, stores, {
    tags: ['Store'],
    operationIds: { get: 'getStore', patch: 'updateStore' },
    scopes: { read: 'settings:read', write: 'settings:write' },
    response: ApiStoreSettings,
    serialize: storeSettingsForApi,
  });
};
