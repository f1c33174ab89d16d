import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/**
 * Public, cacheable GET responses: a strong ETag from the body, `Cache-Control: public,
 * max-age=30`, and 304 Not Modified when the client's If-None-Match already names that body.
 */
export function installPublicCaching(app: FastifyInstance, maxAgeSeconds = 30): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const body = typeof payload === 'string' || Buffer.isBuffer(payload);
    if (request.method !== 'GET' || reply.statusCode !== 200 || !body) return payload;
    // A handler that serves a body from its own cache may have set the ETag it stored with it.
    const preset = reply.getHeader('etag');
    const etag =
      typeof preset === 'string'
        ? preset
        : `"${createHash('sha1')
            .update(payload as string | Buffer)
            .digest('base64url')}"`;
    reply.header('etag', etag);
    reply.header('cache-control', `public, max-age=${maxAgeSeconds}`);
    const match = request.headers['if-none-match'];
    if (match?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) {
      reply.code(304);
      reply.removeHeader('content-type');
      reply.removeHeader('content-length');
      return '';
    }
    return payload;
  });
}
