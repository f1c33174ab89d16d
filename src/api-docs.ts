import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

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

/**
 * The `servers` entry of the OpenAPI document: PUBLIC_URL, the address clients use. A local
 * development address (the default `http://localhost:PORT`) names nothing to whoever reads a
 * published document or generates a client from it, so it becomes `/`: relative to where the
 * document is served, which is that same server when it comes from /openapi.json.
 */
export function documentServer(publicUrl: string): { url: string; description: string } {
  const host = new URL(publicUrl).hostname;
  const local =
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127\./.test(host) ||
    host === '[::1]' ||
    host === '0.0.0.0';
  return local
    ? { url: '/', description: 'The server that serves this document' }
    : { url: publicUrl, description: 'This deployment (PUBLIC_URL)' };
}

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
      servers: [documentServer(publicUrl)],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          adminSession: { type: 'apiKey', in: 'cookie', name: 'emporium_admin' },
          customerSession: { type: 'apiKey', in: 'cookie', name: 'emporium_session' },
          customerBearer: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await server.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CONTENT_SECURITY_POLICY });
}
