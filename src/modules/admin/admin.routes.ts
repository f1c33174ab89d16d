import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { readCookie } from '../../platform/http/cookies.js';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { forbidden } from '../../platform/http/errors.js';
import {
  ADMIN_COOKIE,
  installMerchantAuth,
  type MerchantAuthOptions,
} from '../../platform/http/merchant-auth.js';
import { isForeignOrigin } from '../../platform/http/same-origin.js';
import { adminSessionCookie } from './admin.cookie.js';
import { countriesRoutes } from './admin.countries.js';
import { adminSessionBody, AdminSession as Session } from './admin.schemas.js';
import type { AdminService } from './admin.service.js';

/**
 * /api/admin: the dashboard's sign-in and current user, and the guard (the dashboard's session, never
 * an API key) under which `signedInRoutes` registers other modules' dashboard routes (the stores
 * module's settings and API keys).
 */
export const adminRoutes: FastifyPluginAsyncTypebox<{
  admin: AdminService;
  merchantAuth: MerchantAuthOptions;
  secureCookies: boolean;
  signedInRoutes: (signedIn: FastifyInstance) => Promise<void>;
}> = async (app, { admin, merchantAuth, secureCookies, signedInRoutes }) => {
  const tags = ['Admin'];
  const cookie = (token: string, expiresAt: Date) => adminSessionCookie(token, expiresAt, secureCookies);

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
      return { data: adminSessionBody(session.view) };
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
      async (request) => ({ data: adminSessionBody(await admin.me(request.ctx)) }),
    );

    route.post(
      '/auth/switch',
      {
        schema: {
          tags,
          operationId: 'switchAdminStore',
          summary: 'Switch to another store of the signed-in user (a new emporium_admin cookie)',
          description:
            'The current session ends and a new one opens on the chosen store, with the role and permissions the user has there. 403 when the user is not a member of that store.',
          body: Type.Object(
            { store: Type.String({ minLength: 1, maxLength: 100, description: 'Store slug' }) },
            { additionalProperties: false },
          ),
          response: { 200: DataEnvelope(Session), ...errorResponses(403) },
        },
      },
      async (request, reply) => {
        const token = readCookie(request.headers.cookie, ADMIN_COOKIE) ?? '';
        const session = await admin.switchStore(request.ctx, token, request.body.store);
        reply.header('set-cookie', cookie(session.token, session.expiresAt));
        return { data: adminSessionBody(session.view) };
      },
    );

    await signedIn.register(countriesRoutes);
    await signedInRoutes(signedIn as unknown as FastifyInstance);
  });
};
