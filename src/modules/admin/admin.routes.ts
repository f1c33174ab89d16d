import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { readCookie, sessionCookieHeader } from '../../platform/http/cookies.js';
import { DataEnvelope, IdParams, Nullable } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { forbidden, invalidRequest } from '../../platform/http/errors.js';
import {
  ADMIN_COOKIE,
  installMerchantAuth,
  type MerchantAuthOptions,
} from '../../platform/http/merchant-auth.js';
import { MoneyInput, parseMoney } from '../../platform/http/money-input.js';
import { isForeignOrigin } from '../../platform/http/same-origin.js';
import { SCOPES } from '../../platform/http/scopes.js';
import { currencyDecimals, toDecimalString } from '../../platform/money.js';
import type { StoreRow, StoresService } from '../stores/index.js';
import type { AdminService } from './admin.service.js';

const Timestamp = Type.String({ format: 'date-time' });
const User = Type.Object({ id: Type.String(), email: Type.String() });
const StoreRef = Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() });
const Session = Type.Object({ user: User, store: StoreRef, stores: Type.Array(StoreRef) });

const StoreSettings = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  currency: Type.String(),
  timezone: Type.String(),
  logo: Nullable(Type.String()),
  colors: Type.Record(Type.String(), Type.String()),
  low_stock_threshold: Type.Integer(),
  shipping_flat_rate: Type.String({ description: 'Decimal amount' }),
  free_shipping_threshold: Nullable(Type.String({ description: 'Decimal amount; null: never free' })),
  tax_rate: Type.String({ description: 'Percent, e.g. "8.25"' }),
  app_config: Type.Record(Type.String(), Type.Unknown()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const Color = Type.String({ pattern: '^#[0-9a-fA-F]{6}$' });
const StoreSettingsBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    logo: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
    colors: Type.Optional(
      Type.Object(
        {
          primary: Type.Optional(Color),
          secondary: Type.Optional(Color),
          accent: Type.Optional(Color),
          background: Type.Optional(Color),
          text: Type.Optional(Color),
        },
        { additionalProperties: false },
      ),
    ),
    currency: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{3}$',
        description: 'An ISO 4217 code (USD, EUR, …) with the same minor units as the current one',
      }),
    ),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    low_stock_threshold: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    shipping_flat_rate: Type.Optional(MoneyInput),
    free_shipping_threshold: Type.Optional(Nullable(MoneyInput)),
    tax_rate: Type.Optional(
      Type.Union([
        Type.String({ pattern: '^\\d{1,3}(\\.\\d{1,2})?$' }),
        Type.Number({ minimum: 0, maximum: 100 }),
      ]),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  scopes: Type.Array(Type.String()),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
});

function storeSettings(store: StoreRow) {
  const decimals = currencyDecimals(store.currency);
  return {
    id: store.id,
    slug: store.slug,
    name: store.name,
    currency: store.currency,
    timezone: store.timezone,
    logo: store.logo,
    colors: store.colors,
    low_stock_threshold: store.low_stock_threshold,
    shipping_flat_rate: toDecimalString(store.shipping_flat_rate, decimals),
    free_shipping_threshold:
      store.free_shipping_threshold === null
        ? null
        : toDecimalString(store.free_shipping_threshold, decimals),
    tax_rate: toDecimalString(store.tax_rate_bps, 2).replace(/\.?0+$/, '') || '0',
    app_config: store.app_config,
    created_at: store.created_at.toISOString(),
    updated_at: store.updated_at.toISOString(),
  };
}

/** /api/admin: the dashboard's sign-in, current user, store settings and API keys. */
export const adminRoutes: FastifyPluginAsyncTypebox<{
  admin: AdminService;
  stores: StoresService;
  merchantAuth: MerchantAuthOptions;
  secureCookies: boolean;
}> = async (app, { admin, stores, merchantAuth, secureCookies }) => {
  const tags = ['Admin'];
  const cookie = (token: string, expiresAt: Date) =>
    sessionCookieHeader(ADMIN_COOKIE, token, { expiresAt, sameSite: 'Strict', secure: secureCookies });

  app.post(
    '/auth/login',
    {
      schema: {
        tags,
        operationId: 'adminLogin',
        security: [],
        summary: 'Sign in to the dashboard (sets the emporium_admin cookie)',
        description: 'At most 10 attempts per e-mail and 50 per client IP per 15 minutes.',
        body: Type.Object(
          {
            email: Type.String({ minLength: 3, maxLength: 254 }),
            password: Type.String({ minLength: 1, maxLength: 1000 }),
            store: Type.Optional(
              Type.String({ maxLength: 100, description: 'Store slug (default: the first)' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: DataEnvelope(Session), ...errorResponses(401, 403, 429) },
      },
      // Login CSRF: a form on another site must not sign the browser in to an account of its choosing.
      onRequest: async (request) => {
        const trusted = merchantAuth.admin?.trustedOrigins;
        if (trusted && isForeignOrigin(request, trusted)) {
          throw forbidden('Cross-site sign-in refused: sign in from the dashboard');
        }
      },
    },
    async (request, reply) => {
      const session = await admin.login(request.body, request.ip);
      reply.header('set-cookie', cookie(session.token, session.expiresAt));
      return {
        data: {
          user: session.user,
          store: { id: session.store.id, slug: session.store.slug, name: session.store.name },
          stores: session.stores.map((s) => ({ id: s.id, slug: s.slug, name: s.name })),
        },
      };
    },
  );

  await app.register(async (signedIn) => {
    installMerchantAuth(signedIn as unknown as FastifyInstance, {
      ...merchantAuth,
      // API keys do not open the dashboard API: only the dashboard's own session does.
      resolveApiKey: undefined,
    });
    const route = signedIn.withTypeProvider<import('@fastify/type-provider-typebox').TypeBoxTypeProvider>();

    route.post(
      '/auth/logout',
      { schema: { tags, operationId: 'adminLogout', summary: 'Sign out', response: { 204: Type.Null() } } },
      async (request, reply) => {
        const token = readCookie(request.headers.cookie, ADMIN_COOKIE);
        if (token) await admin.logout(token);
        reply.header('set-cookie', cookie('', new Date(0)));
        return reply.code(204).send(null);
      },
    );

    route.get(
      '/me',
      {
        schema: {
          tags,
          operationId: 'getAdminSession',
          summary: 'The signed-in user and store',
          response: { 200: DataEnvelope(Session) },
        },
      },
      async (request) => {
        const me = await admin.me(request.ctx);
        return {
          data: {
            user: me.user,
            store: { id: me.store.id, slug: me.store.slug, name: me.store.name },
            stores: me.stores.map((s) => ({ id: s.id, slug: s.slug, name: s.name })),
          },
        };
      },
    );

    route.get(
      '/store',
      {
        schema: {
          tags,
          operationId: 'getStoreSettings',
          summary: 'Store settings',
          response: { 200: DataEnvelope(StoreSettings) },
        },
      },
      async (request) => ({ data: storeSettings(await stores.getStore(request.ctx.storeId)) }),
    );

    route.patch(
      '/store',
      {
        schema: {
          tags,
          operationId: 'updateStoreSettings',
          summary: 'Change store settings (profile, colours, currency, timezone, shipping, tax, low stock)',
          body: StoreSettingsBody,
          response: { 200: DataEnvelope(StoreSettings), ...errorResponses(409) },
        },
      },
      async (request) => {
        const body = request.body;
        const current = await stores.getStore(request.ctx.storeId);
        const decimals = currencyDecimals(current.currency);
        const { shipping_flat_rate, free_shipping_threshold, tax_rate, colors, ...rest } = body;
        const taxRateBps = tax_rate === undefined ? undefined : parseMoney(tax_rate, 'tax_rate', 2);
        if (taxRateBps !== undefined && taxRateBps > 10_000)
          throw invalidRequest('tax_rate must be at most 100', [
            { field: 'tax_rate', message: 'at most 100' },
          ]);
        const store = await stores.updateSettings(request.ctx.storeId, {
          ...rest,
          ...(colors ? { colors: { ...current.colors, ...colors } } : {}),
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
        });
        return { data: storeSettings(store) };
      },
    );

    route.get(
      '/api-keys',
      {
        schema: {
          tags,
          operationId: 'listApiKeys',
          summary: 'API keys of the store',
          response: { 200: DataEnvelope(Type.Array(ApiKey)) },
        },
      },
      async (request) => ({
        data: (await stores.listApiKeys(request.ctx.storeId)).map((k) => ({
          id: k.id,
          name: k.name,
          prefix: k.key_prefix,
          scopes: k.scopes,
          created_at: k.created_at.toISOString(),
          last_used_at: k.last_used_at?.toISOString() ?? null,
          revoked_at: k.revoked_at?.toISOString() ?? null,
        })),
      }),
    );

    route.post(
      '/api-keys',
      {
        schema: {
          tags,
          operationId: 'createApiKey',
          summary: 'Create an API key (the secret is shown only in this answer)',
          body: Type.Object(
            {
              name: Type.Optional(Type.String({ maxLength: 100 })),
              scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), {
                minItems: 1,
                uniqueItems: true,
              }),
            },
            { additionalProperties: false },
          ),
          response: {
            201: DataEnvelope(
              Type.Object({
                id: Type.String(),
                key: Type.String(),
                name: Type.String(),
                scopes: Type.Array(Type.String()),
              }),
            ),
          },
        },
      },
      async (request, reply) => {
        const key = await stores.createApiKey(request.ctx.storeId, request.body);
        return reply
          .code(201)
          .send({ data: { id: key.id, key: key.key, name: key.name, scopes: key.scopes } });
      },
    );

    route.delete(
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
  });
};
