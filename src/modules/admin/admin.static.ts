import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../platform/http/errors.js';

/** admin/dist of the repository: what `npm install` (the `prepare` script) builds with Vite. */
export const ADMIN_DIST = path.resolve(import.meta.dirname, '../../../admin/dist');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

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
}

/**
 * GET /admin and /admin/*: the dashboard's static files. A path naming a file of the build serves
 * that file; any other path without a file extension is a client-side route and gets index.html;
 * a missing file with an extension is 404. Without a build, a page saying how to make one (503).
 */
export const adminDashboardRoutes: FastifyPluginAsync<AdminDashboardOptions> = async (app, options) => {
  const root = path.resolve(options.root ?? ADMIN_DIST);

  async function serveFile(request: FastifyRequest, reply: FastifyReply, file: string, cache: string) {
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      return false;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) {
        await handle.close();
        return false;
      }
      const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
      reply
        .header('cache-control', cache)
        .header('etag', etag)
        .header('last-modified', stat.mtime.toUTCString())
        .header('x-content-type-options', 'nosniff');
      const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
      if (type.startsWith('text/html')) {
        reply
          .header('content-security-policy', CONTENT_SECURITY_POLICY)
          .header('x-frame-options', 'DENY')
          .header('referrer-policy', 'same-origin');
      }
      const ifNoneMatch = request.headers['if-none-match'];
      if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
        await handle.close();
        reply.code(304).send();
        return true;
      }
      reply.type(type).header('content-length', stat.size);
      if (request.method === 'HEAD') {
        await handle.close();
        reply.send();
        return true;
      }
      // The stream owns the handle from here and closes it when done or destroyed.
      reply.send(handle.createReadStream());
      return true;
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  async function serveIndex(request: FastifyRequest, reply: FastifyReply) {
    if (await serveFile(request, reply, path.join(root, 'index.html'), REVALIDATE)) return reply;
    return reply
      .code(503)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(request.method === 'HEAD' ? undefined : NOT_BUILT);
  }

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    // The raw path, not the decoded parameter: an encoded separator or dot segment is never a file.
    const rawPath = (request.raw.url ?? '').split('?')[0] ?? '';
    const relative = rawPath.replace(/^\/admin\/?/, '');
    if (relative === '' || relative === 'index.html') return serveIndex(request, reply);

    const segments = relative.split('/');
    const looksLikeFile = path.extname(segments[segments.length - 1] ?? '') !== '';
    if (!looksLikeFile) return serveIndex(request, reply);

    const safe =
      !relative.includes('%') &&
      !relative.includes('\\') &&
      segments.every((s) => s !== '' && s !== '.' && s !== '..' && !s.startsWith('.'));
    const file = path.join(root, ...segments);
    if (safe && file.startsWith(root + path.sep)) {
      const cache = segments[0] === 'assets' ? IMMUTABLE : REVALIDATE;
      if (await serveFile(request, reply, file, cache)) return reply;
    }
    throw notFound('file');
  };

  // GET and HEAD declared together: Fastify's automatic HEAD route would read the whole file.
  for (const url of ['/admin', '/admin/*']) {
    app.route({ method: ['GET', 'HEAD'], url, schema: { hide: true }, handler });
  }
};
