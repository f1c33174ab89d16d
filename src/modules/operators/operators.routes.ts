import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { readCookie, sessionCookieHeader } from '../../platform/http/cookies.js';
import type { CursorCodec } from '../../platform/http/cursor.js';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { forbidden } from '../../platform/http/errors.js';
import { isForeignOrigin, type TrustedOrigins } from '../../platform/http/same-origin.js';
import { installOperatorAuth, OPERATOR_COOKIE } from './operator-auth.js';
import { OperatorLoginBody, OperatorSession } from './operators.schemas.js';
import type { OperatorsService } from './operators.service.js';
import { operatorStoresRoutes } from './operators-stores.routes.js';

export interface OperatorRoutesOptions {
  operators: OperatorsService;
  /** PUBLIC_URL's origins: the console is served there only (no store's custom domain). */
  trustedOrigins: TrustedOrigins;
  secureCookies: boolean;
  cursors: CursorCodec;
}

/**
 * /api/operator: the operators' sign-in, and under the operator guard their session and the stores
 * of the platform (contract §14). Other modules' routes under the same prefix (the domain check)
 * are registered beside this plugin, outside its guard.
 */
export const operatorRoutes: FastifyPluginAsyncTypebox<OperatorRoutesOptions> = async (app, options) => {
  const { operators, trustedOrigins, secureCookies } = options;
  const tags = ['Operator'];
  const cookie = (token: string, expiresAt: Date) =>
    sessionCookieHeader(OPERATOR_COOKIE, token, { expiresAt, sameSite: 'Strict', secure: secureCookies });

  app.post(
    '/auth/login',
    {
      schema: {
        tags,
        operationId: 'operatorLogin',
        security: [],
        summary: 'Sign in as an operator (sets the emporium_operator cookie)',
        description: 'At most 10 attempts per e-mail and 50 per client IP per 15 minutes.',
        body: OperatorLoginBody,
        response: { 200: DataEnvelope(OperatorSession), ...errorResponses(401, 403, 429) },
      },
      // Login CSRF: a form on another site must not sign the browser in as an operator of its choosing.
      onRequest: async (request) => {
        if (isForeignOrigin(request, trustedOrigins))
          throw forbidden('Cross-site sign-in refused: sign in from the operator console');
      },
    },
    async (request, reply) => {
      const session = await operators.login(request.body, request.ip);
      reply.header('set-cookie', cookie(session.token, session.expiresAt));
      return { data: { operator: session.operator } };
    },
  );

  await app.register(async (signedIn) => {
    installOperatorAuth(signedIn as unknown as FastifyInstance, {
      resolveSession: (token) => operators.resolveSession(token),
      trustedOrigins,
    });
    const route = signedIn.withTypeProvider<TypeBoxTypeProvider>();

    route.post(
      '/auth/logout',
      {
        schema: {
          tags,
          operationId: 'operatorLogout',
          summary: 'Sign out of the operator console',
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        const token = readCookie(request.headers.cookie, OPERATOR_COOKIE);
        if (token) await operators.logout(token);
        reply.header('set-cookie', cookie('', new Date(0)));
        return reply.code(204).send(null);
      },
    );

    route.get(
      '/me',
      {
        schema: {
          tags,
          operationId: 'getOperatorSession',
          summary: 'The signed-in operator',
          response: { 200: DataEnvelope(OperatorSession) },
        },
      },
      async (request) => ({ data: { operator: request.operator } }),
    );

    await signedIn.register(operatorStoresRoutes, { operators, cursors: options.cursors });
  });
};
