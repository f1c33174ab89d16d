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
import type { AdminService } from './admin.service.js';

const User = Type.Object({ id: Type.String(), email: Type.String() });
const StoreRef = Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() });
const Session = Type.Object({ user: User, store: StoreRef, stores: Type.Array(StoreRef) });

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

    await signedIn.register(countriesRoutes);
    await signedInRoutes(signedIn as unknown as FastifyInstance);
  });
};
