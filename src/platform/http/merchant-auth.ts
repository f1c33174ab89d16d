import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createAuthFailureThrottle } from './auth-failures.js';
import type { RequestContext } from './context.js';
import { readCookie } from './cookies.js';
import { errorResponses } from './error-responses.js';
import { forbidden, rateLimited, unauthorized } from './errors.js';
import type { RateLimitStore } from './rate-limit.js';
import { isSameOriginWrite, type TrustedOrigins } from './same-origin.js';

/** Resolves a raw `X-API-Key` to its store and scopes, or undefined for an unknown/revoked key. */
export type ApiKeyResolver = (rawKey: string) => Promise<RequestContext | undefined>;

export interface MerchantAuthOptions {
  /** Absent: API keys open nothing here, only the dashboard's session does (/api/admin). */
  resolveApiKey?: ApiKeyResolver;
  rateLimit: { store: RateLimitStore; perMinute: number };
  /** The dashboard's session (cookie `emporium_admin`): every scope of its store. */
  admin?: {
    resolveSession: (token: string) => Promise<RequestContext | undefined>;
    /** Where the dashboard's cookie writes may come from (same-origin.ts). */
    trustedOrigins: TrustedOrigins;
  };
}

export const ADMIN_COOKIE = 'emporium_admin';

const WINDOW_MS = 60_000;

/**
 * The `/api/v1` guard, in the contract's order: 401 for a missing or invalid key (or dashboard
 * session), 403 for a missing scope, and only then the rate limit, counted per key or per admin user.
 */
export function installMerchantAuth(app: FastifyInstance, options: MerchantAuthOptions): void {
  const failures = createAuthFailureThrottle(options.rateLimit.store);
  /** Without an API key, the dashboard's cookie; its writes must pass the same-origin check. */
  async function adminContext(request: FastifyRequest): Promise<RequestContext | undefined> {
    const token = options.admin && readCookie(request.headers.cookie, ADMIN_COOKIE);
    if (!token || !options.admin) return undefined;
    const ctx = await options.admin.resolveSession(token);
    if (ctx && !isSameOriginWrite(request, options.admin.trustedOrigins, ctx.storeId))
      throw forbidden('Cross-site request refused (CSRF check failed)');
    return ctx;
  }

  // Documented from the options, so the document says exactly what this guard accepts and answers.
  const security: Record<string, string[]>[] = [
    ...(options.resolveApiKey ? [{ apiKey: [] }] : []),
    ...(options.admin ? [{ adminSession: [] }] : []),
  ];
  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope;
    route.schema = {
      ...route.schema,
      security,
      ...(scope ? { 'x-required-scope': scope } : {}),
      description: [route.schema?.description, scope ? `Requires the \`${scope}\` scope.` : undefined]
        .filter(Boolean)
        .join('\n\n'),
      response: {
        // 403: a key without the scope; a dashboard write failing the same-origin check; on any
        // route, a key or session of a suspended store (contract §14).
        ...errorResponses(401, 403, 429),
        ...(route.schema?.response as object),
      },
    } as typeof route.schema;
  });

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers['x-api-key'];
    const raw = Array.isArray(header) ? header[0] : header;
    const ctx = raw ? await options.resolveApiKey?.(raw) : await adminContext(request);
    // A key that is presented and wrong counts towards the address's failure limit (guessing).
    if (!ctx && raw) return failures.refuse(request, unauthorized('The API key is invalid or revoked'));
    if (!ctx) throw unauthorized('The X-API-Key header is missing');
    const scope = request.routeOptions.config.scope;
    if (scope && !ctx.scopes.includes(scope)) {
      throw forbidden(`This API key lacks the ${scope} scope`);
    }
    request.ctx = ctx;

    const { perMinute, store } = options.rateLimit;
    const { count, resetInMs } = await store.hit(ctx.actor.id, WINDOW_MS);
    const resetSeconds = Math.max(1, Math.ceil(resetInMs / 1000));
    reply.header('x-ratelimit-limit', perMinute);
    reply.header('x-ratelimit-remaining', Math.max(0, perMinute - count));
    reply.header('x-ratelimit-reset', resetSeconds);
    if (count > perMinute) throw rateLimited(resetSeconds);
  });
}
