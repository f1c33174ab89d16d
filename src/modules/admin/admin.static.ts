import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../platform/http/errors.js';
import { fileInside } from '../../platform/http/static-files.js';

/** admin/dist of the repository: what `npm install` (the `prepare` script) builds with Vite. */
export const ADMIN_DIST = path.resolve(import.meta.dirname, '../../../admin/dist');

/** Vite names every file under assets/ by its content hash: safe to keep for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current hashed files, so it is revalidated on every load. */
const REVALIDATE = 'no-cache';

/**
 * The page's own files only, from this origin; images anywhere (product images are any URL); no
 * framing. API calls are same-origin fetches.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  'img-src * data: blob:',
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Emporium admin: not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>The dashboard has not been built</h1>
<p><code>npm install</code> builds it into <code>admin/dist</code>; this copy has no build yet.
Run <code>npm run build:admin</code> and reload this page (no restart needed).</p>
<p>The API is unaffected: see <a href="/docs">/docs</a>.</p>
</body></html>
`;

export interface AdminDashboardOptions {
  /** The built dashboard (default: admin/dist of the repository). */
  root?: string;
  /**
   * Where the page is served (default /admin) and the build's HTML entry it answers with (default
   * index.html): the operator console is the same build's second entry, operator.html at /operator.
   */
  mount?: '/admin' | '/operator';
  index?: string;
}

/**
 * GET /admin and /admin/* (or /operator and /operator/*): the dashboard's static files, sent by @fastify/static (ETag,
 * Last-Modified, 304, HEAD and ranges). A path naming a file of the build serves that file; any
 * other path without a file extension is a client-side route and gets index.html; a missing file
 * with an extension is 404. Without a build, a page saying how to make one (503).
 */
export const adminDashboardRoutes: FastifyPluginAsync<AdminDashboardOptions> = async (app, options) => {
  const root = path.resolve(options.root ?? ADMIN_DIST);
  const mount = options.mount ?? '/admin';
  const indexFile = options.index ?? 'index.html';
  // sendFile only: the routes below decide what may be served.
  // Without a build the folder is missing: /admin then says how to build it (below), no warning.
  await app.register(fastifyStatic, { root, serve: false, suppressWarning: true });

  function sendFile(reply: FastifyReply, relative: string, cache: string) {
    if (relative.endsWith('.html')) {
      reply
        .header('content-security-policy', CONTENT_SECURITY_POLICY)
        .header('x-frame-options', 'DENY')
        .header('referrer-policy', 'same-origin');
    }
    return reply
      .header('cache-control', cache)
      .sendFile(relative, root, { cacheControl: false, dotfiles: 'deny' });
  }

  async function serveIndex(request: FastifyRequest, reply: FastifyReply) {
    const index = await fileInside(root, indexFile);
    if (index) return sendFile(reply, index, REVALIDATE);
    return reply
      .code(503)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(request.method === 'HEAD' ? undefined : NOT_BUILT);
  }

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    // The raw path, not the decoded parameter: an encoded separator or dot segment is never a file.
    const rawPath = (request.raw.url ?? '').split('?')[0] ?? '';
    const relative = rawPath.slice(mount.length).replace(/^\//, '');
    if (relative === '' || relative === 'index.html') return serveIndex(request, reply);

    const segments = relative.split('/');
    const looksLikeFile = path.extname(segments[segments.length - 1] ?? '') !== '';
    if (!looksLikeFile) return serveIndex(request, reply);

    const safe =
      !relative.includes('%') &&
      !relative.includes('\\') &&
      segments.every((s) => s !== '' && s !== '.' && s !== '..' && !s.startsWith('.'));
    const file = safe ? await fileInside(root, segments.join('/')) : undefined;
    if (!file) throw notFound('file');
    return sendFile(reply, file, segments[0] === 'assets' ? IMMUTABLE : REVALIDATE);
  };

  // GET and HEAD declared together: Fastify's automatic HEAD route would read the whole file.
  for (const url of [mount, `${mount}/*`]) {
    app.route({ method: ['GET', 'HEAD'], url, schema: { hide: true }, handler });
  }
};
