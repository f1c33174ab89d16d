import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { clearedSessionCookie, sessionCookie } from '../../platform/http/customer-auth.js';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { CustomerProfile, profileForCustomer } from '../customers/index.js';
import { SlugParams } from '../storefront/index.js';
import type { StoresService } from '../stores/index.js';
import type { CustomerAccountsService } from './customer-accounts.service.js';

const Email = Type.String({ format: 'email', maxLength: 254 });

/** /api/storefront/{slug}/auth/…: the e-mail one-time-code login (no session yet). */
export const customerAuthRoutes: FastifyPluginAsyncTypebox<{
  accounts: CustomerAccountsService;
  stores: StoresService;
  secureCookies: boolean;
}> = async (app, { accounts, stores, secureCookies }) => {
  const tags = ['Customer login'];

  app.post(
    '/:slug/auth/request-code',
    {
      schema: {
        tags,
        operationId: 'requestLoginCode',
        security: [],
        summary: 'E-mail a 6-digit login code (answers the same whether or not the e-mail is known)',
        description:
          'The code is valid 10 minutes and allows 5 wrong tries. At most 5 codes per e-mail and 30 requests per client IP per 15 minutes (429).',
        params: SlugParams,
        body: Type.Object({ email: Email }, { additionalProperties: false }),
        response: { 202: DataEnvelope(Type.Object({ sent: Type.Literal(true) })), ...errorResponses(429) },
      },
    },
    async (request, reply) => {
      const store = await stores.getActiveStoreBySlug(request.params.slug);
      await accounts.requestCode(store, request.body.email, request.ip);
      return reply.code(202).send({ data: { sent: true as const } });
    },
  );

  app.post(
    '/:slug/auth/verify',
    {
      schema: {
        tags,
        operationId: 'verifyLoginCode',
        security: [],
        summary: 'Exchange the code for a session (cookie `emporium_session` and a Bearer token)',
        description:
          'A wrong or expired code is 401; after 5 wrong tries the code is dead. At most 60 verifications per client IP per 15 minutes.',
        params: SlugParams,
        body: Type.Object(
          { email: Email, code: Type.String({ pattern: '^\\d{6}$' }) },
          { additionalProperties: false },
        ),
        response: {
          200: DataEnvelope(
            Type.Object({
              token: Type.String(),
              expiresAt: Type.String({ format: 'date-time' }),
              customer: CustomerProfile,
            }),
          ),
          ...errorResponses(401, 429),
        },
      },
    },
    async (request, reply) => {
      const store = await stores.getActiveStoreBySlug(request.params.slug);
      const session = await accounts.verify(store, request.body.email, request.body.code, request.ip);
      reply.header('set-cookie', sessionCookie(session.token, session.expiresAt, secureCookies));
      return {
        data: {
          token: session.token,
          expiresAt: session.expiresAt.toISOString(),
          customer: profileForCustomer(session.customer),
        },
      };
    },
  );
};

/** POST /api/customer/logout (inside the customer-session guard). */
export const customerLogoutRoutes: FastifyPluginAsyncTypebox<{
  accounts: CustomerAccountsService;
  secureCookies: boolean;
}> = async (app, { accounts, secureCookies }) => {
  app.post(
    '/logout',
    {
      schema: {
        tags: ['Customer account'],
        operationId: 'customerLogout',
        summary: 'End this session',
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      if (request.sessionToken) await accounts.logout(request.sessionToken);
      reply.header('set-cookie', clearedSessionCookie(secureCookies));
      return reply.code(204).send(null);
    },
  );
};
