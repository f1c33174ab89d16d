import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createAuthFailureThrottle } from './auth-failures.js';
import { readCookie, sessionCookieHeader } from './cookies.js';
import { errorResponses } from './error-responses.js';
import { forbidden, unauthorized } from './errors.js';
import type { RateLimitStore } from './rate-limit.js';
import { isSameOriginWrite, type TrustedOrigins } from './same-origin.js';

export const SESSION_COOKIE = 'emporium_session';

export interface CustomerAuthOptions {
  resolveSession(token: string): Promise<{ storeId: string; customerId: string } | undefined>;
  /** Where cookie-authenticated writes may come from (PUBLIC_URL's origin; same-origin.ts). */
  trustedOrigins: TrustedOrigins;
  /** Counts wrong Bearer tokens per client address (auth-failures.ts). */
  rateLimits: RateLimitStore;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The raw session token of a customer request (for logout). */
    sessionToken?: string;
  }
}

export function sessionCookie(token: string, expiresAt: Date, secure: boolean): string {
  return sessionCookieHeader(SESSION_COOKIE, token, { expiresAt, sameSite: 'Lax', secure });
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookieHeader(SESSION_COOKIE, '', { expiresAt: new Date(0), sameSite: 'Lax', secure });
}

/**
 * The guard of /api/customer and /api/mobile: a session from `Authorization: Bearer <token>` or the
 * `emporium_session` cookie, else 401. A cookie-authenticated write must come from the store's own
 * origin (isSameOriginWrite), else 403: a cross-site form cannot act on a shopper's behalf.
 * Bearer tokens are not sent by browsers on their own, so they need no such check.
 */
export function installCustomerAuth(app: FastifyInstance, options: CustomerAuthOptions): void {
  app.addHook('onRoute', (route) => {
    const write = [route.method].flat().some((method) => !['GET', 'HEAD', 'OPTIONS'].includes(method));
    route.schema = {
      ...route.schema,
      security: [{ customerSession: [] }, { customerBearer: [] }],
      response: {
        // 403: a cookie-authenticated write from another origin (reads are never refused).
        ...errorResponses(401, ...(write ? [403 as const] : []), 429),
        ...(route.schema?.response as object),
      },
    } as typeof route.schema;
  });

  app.addHook('onRequest', async (request: FastifyRequest, _reply: FastifyReply) => {
    const found = await customerSessionOf(request, options);
    if (!found) throw unauthorized('A customer session is required (cookie or Bearer token)');
    request.sessionToken = found.token;
    request.ctx = {
      storeId: found.session.storeId,
      actor: { kind: 'customer', id: found.session.customerId },
      source: 'system',
      scopes: [],
    };
  });
}

/**
 * The customer session a request carries (`Authorization: Bearer` first, else the cookie), or
 * undefined when it carries none. A token that names no live session is 401; a cookie-
 * authenticated write from another origin is 403 (isSameOriginWrite). Shared by the guard above
 * and the routes where a session is optional (checkout).
 */
export async function customerSessionOf(
  request: FastifyRequest,
  options: CustomerAuthOptions,
): Promise<
  { token: string; viaCookie: boolean; session: { storeId: string; customerId: string } } | undefined
> {
  const authorization = request.headers.authorization;
  const bearer = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const token = bearer ?? readCookie(request.headers.cookie, SESSION_COOKIE);
  if (!token) return undefined;
  const session = await options.resolveSession(token);
  // A wrong Bearer token counts towards the address's failure limit (auth-failures.ts); a stale
  // cookie (the browser sends it by itself) does not.
  if (!session && bearer)
    return createAuthFailureThrottle(options.rateLimits).refuse(
      request,
      unauthorized('The session is invalid or has expired'),
    );
  if (!session) throw unauthorized('The session is invalid or has expired');
  if (!bearer && !isSameOriginWrite(request, options.trustedOrigins, session.storeId)) {
    throw forbidden('Cross-site request refused: send it from the store origin or use a Bearer token');
  }
  return { token, viaCookie: !bearer, session };
}
