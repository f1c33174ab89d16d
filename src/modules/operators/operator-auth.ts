import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readCookie } from '../../platform/http/cookies.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { forbidden, unauthorized } from '../../platform/http/errors.js';
import { isSameOriginWrite, type TrustedOrigins } from '../../platform/http/same-origin.js';
import type { Operator } from './operators.service.js';

export const OPERATOR_COOKIE = 'emporium_operator';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in operator (routes under the operator guard only). */
    operator: Operator;
  }
}

/**
 * The guard of the operator API: the `emporium_operator` cookie and nothing else (an API key or the
 * dashboard's cookie opens nothing here), and the dashboard's CSRF rule on every write.
 */
export function installOperatorAuth(
  app: FastifyInstance,
  options: {
    resolveSession: (token: string) => Promise<Operator | undefined>;
    trustedOrigins: TrustedOrigins;
  },
): void {
  app.addHook('onRoute', (route) => {
    const write = [route.method].flat().some((method) => !['GET', 'HEAD', 'OPTIONS'].includes(method));
    route.schema = {
      ...route.schema,
      security: [{ operatorSession: [] }],
      response: {
        ...errorResponses(401, ...(write ? [403 as const] : [])),
        ...(route.schema?.response as object),
      },
    } as typeof route.schema;
  });

  app.addHook('onRequest', async (request: FastifyRequest) => {
    const token = readCookie(request.headers.cookie, OPERATOR_COOKIE);
    const operator = token ? await options.resolveSession(token) : undefined;
    if (!operator)
      throw unauthorized('Sign in as an operator (the emporium_operator cookie is missing or expired)');
    if (!isSameOriginWrite(request, options.trustedOrigins))
      throw forbidden('Cross-site request refused (CSRF check failed)');
    request.operator = operator;
  });
}
