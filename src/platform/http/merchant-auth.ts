import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RequestContext } from './context.js';
import { forbidden, rateLimited, unauthorized } from './errors.js';
import type { RateLimitStore } from './rate-limit.js';

/** Resolves a raw `X-API-Key` to its store and scopes, or undefined for an unknown/revoked key. */
export type ApiKeyResolver = (rawKey: string) => Promise<RequestContext | undefined>;

export interface MerchantAuthOptions {
  resolveApiKey: ApiKeyResolver;
  rateLimit: { store: RateLimitStore; perMinute: number };
}

const WINDOW_MS = 60_000;

/**
 * The `/api/v1` guard, in the contract's order: 401 for a missing or invalid key, 403 for a missing
 * scope, and only then the rate limit, counted per key.
 */
export function installMerchantAuth(app: FastifyInstance, options: MerchantAuthOptions): void {
  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope;
    route.schema = {
      ...route.schema,
      security: [{ apiKey: [] }],
      ...(scope ? { 'x-required-scope': scope } : {}),
      description: [route.schema?.description, scope ? `Requires the \`${scope}\` scope.` : undefined]
        .filter(Boolean)
        .join('\n\n'),
      response: {
        ...(route.schema?.response as object),
        400: { $ref: 'ErrorBody#' },
        401: { $ref: 'ErrorBody#' },
        403: { $ref: 'ErrorBody#' },
        404: { $ref: 'ErrorBody#' },
        429: { $ref: 'ErrorBody#' },
      },
    } as typeof route.schema;
  });

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers['x-api-key'];
    const raw = Array.isArray(header) ? header[0] : header;
    if (!raw) throw unauthorized('The X-API-Key header is missing');
    const ctx = await options.resolveApiKey(raw);
    if (!ctx) throw unauthorized('The API key is invalid or revoked');
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
