import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { withHttpConventions } from './platform/http/openapi-conventions.js';

/**
 * /docs (swagger-ui) as strict as /admin: its scripts, styles and fonts from this origin only (no
 * inline script: the page's scripts are files), inline styles (React sets style attributes), images
 * from self and data: (its logo), "Try it out" calls and the document itself from self, no framing.
 */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/** The OpenAPI 3.1 document (built from the route schemas) and its page at /docs. */
export async function installApiDocs(server: FastifyInstance, publicUrl: string): Promise<void> {
  await server.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Emporium API',
        version: '1.0.0',
        description:
          'Merchant REST API (`/api/v1`, header `X-API-Key`), storefront, customer and mobile endpoints of Emporium.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // PUBLIC_URL, the address clients call: a generated client needs an absolute base URL (a
      // relative `/` is unusable outside a browser).
      servers: [{ url: publicUrl, description: 'This deployment (PUBLIC_URL)' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          adminSession: { type: 'apiKey', in: 'cookie', name: 'emporium_admin' },
          operatorSession: { type: 'apiKey', in: 'cookie', name: 'emporium_operator' },
          customerSession: { type: 'apiKey', in: 'cookie', name: 'emporium_session' },
          customerBearer: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    transformObject: (built) =>
      'openapiObject' in built ? withHttpConventions(built.openapiObject) : built.swaggerObject,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await server.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CONTENT_SECURITY_POLICY });
}
