import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { DataEnvelope } from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { notFound, rateLimited } from '../../platform/http/errors.js';
import type { RateLimitStore } from '../../platform/http/rate-limit.js';
import { parseDomainQuery } from './custom-domains.js';
import type { StoresService } from './stores.service.js';

/**
 * Questions one client address may ask per sliding minute. A proxy asks once for each name it has
 * no certificate for yet, so its own address stays far below this; past it (a flood of made-up
 * names in TLS handshakes, or someone polling), the answer is 429 and the proxy issues nothing.
 */
export const DOMAIN_CHECKS_PER_MINUTE = 120;
const WINDOW_MS = 60_000;

/**
 * `GET /api/operator/domains/check?domain=` (contract §14, registered under /api/operator): 200 when
 * the name is an active or suspended store's custom domain, 404 otherwise. No authentication: it
 * says only what DNS already says (the name points here), so the answer carries the name alone.
 * Answered from the stores' in-memory domain directory, never the database.
 */
export const domainCheckRoutes: FastifyPluginAsyncTypebox<{
  stores: StoresService;
  rateLimits: RateLimitStore;
}> = async (app, { stores, rateLimits }) => {
  // Counted before validation, so malformed questions use up the limit too.
  const limitPerAddress = async (request: FastifyRequest) => {
    const key = `domain-check:${request.ip}`;
    const { count, retryInMs } = await rateLimits.hitSliding(key, WINDOW_MS, DOMAIN_CHECKS_PER_MINUTE);
    if (count > DOMAIN_CHECKS_PER_MINUTE) throw rateLimited(Math.max(1, Math.ceil(retryInMs / 1000)));
  };

  app.get(
    '/domains/check',
    {
      onRequest: limitPerAddress,
      schema: {
        tags: ['Operator'],
        operationId: 'checkCustomDomain',
        security: [],
        summary: "Whether a host name is a store's custom domain (a proxy's on-demand TLS `ask`)",
        description:
          "A reverse proxy that obtains certificates on demand (Caddy's `on_demand_tls { ask … }`) asks this before requesting one for a name it was sent. 200 when the name is the custom domain of an active or suspended store (a suspended store's shop shows its closed page over HTTPS), 404 for any other name, including a disabled or deleting store's. Any case; one trailing dot is ignored; a port, an IP address or anything that is not a host name is 400. No authentication: it tells only what DNS tells. At most 120 questions per client address per minute (429).",
        querystring: Type.Object(
          {
            domain: Type.String({
              minLength: 1,
              maxLength: 300,
              description: 'The host name a certificate would be for, such as shop.example.com',
            }),
          },
          // Unknown parameters are ignored, as on every query string (docs/decisions.md).
        ),
        response: {
          200: DataEnvelope(
            Type.Object({ domain: Type.String({ description: 'The name, lower-case, in ASCII form' }) }),
          ),
          ...errorResponses(404, 429),
        },
      },
    },
    async (request) => {
      const domain = parseDomainQuery(request.query.domain);
      // The names the shop answers on (active and suspended stores'): a certificate for any other
      // would serve nothing. Only the name goes back, never the slug.
      if (stores.slugOfCustomDomain(domain) === undefined) throw notFound('custom domain');
      return { data: { domain } };
    },
  );
};
