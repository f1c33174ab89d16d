import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { notFound } from '../../platform/http/errors.js';
import { isValidMediaKey, MEDIA_CACHE_CONTROL } from './media.storage.js';

const CONTENT_TYPES: Record<string, string> = {
  '.webp': 'image/webp',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.avif': 'image/avif',
};

export interface MediaRoutesOptions {
  /** The local media folder (localMediaRoot(DATA_DIR)). */
  root: string;
}

/**
 * GET /media/* for the local driver: immutable, content-addressed files with a year-long cache.
 * Keys are checked against the same pattern storage uses (no `..`, no absolute path, no encoded
 * separator, no hidden file) before the file system is touched; symbolic links are not followed.
 */
export const mediaRoutes: FastifyPluginAsync<MediaRoutesOptions> = async (app, options) => {
  const root = path.resolve(options.root);

  // GET and HEAD declared together: Fastify's automatic HEAD route would read the whole file.
  app.route({
    method: ['GET', 'HEAD'],
    url: '/media/*',
    schema: { hide: true },
    handler: async (request, reply) => {
      // The raw path, not the decoded parameter: a percent-encoded key is never valid.
      const rawPath = (request.raw.url ?? '').split('?')[0] ?? '';
      const key = rawPath.slice('/media/'.length);
      if (!rawPath.startsWith('/media/') || !isValidMediaKey(key)) throw notFound('media');

      const file = path.join(root, ...key.split('/'));
      if (!file.startsWith(root + path.sep)) throw notFound('media');
      let handle: fs.FileHandle;
      try {
        handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
      } catch {
        throw notFound('media');
      }
      try {
        const stat = await handle.stat();
        if (!stat.isFile()) throw notFound('media');
        const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
        reply
          .header('cache-control', MEDIA_CACHE_CONTROL)
          .header('etag', etag)
          .header('last-modified', stat.mtime.toUTCString())
          .header('x-content-type-options', 'nosniff')
          // Product images are embedded by storefronts on other origins (headless shops, apps).
          .header('cross-origin-resource-policy', 'cross-origin');
        const ifNoneMatch = request.headers['if-none-match'];
        if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
          await handle.close();
          return reply.code(304).send();
        }
        reply
          .type(CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream')
          .header('content-length', stat.size);
        if (request.method === 'HEAD') {
          await handle.close();
          return reply.send();
        }
        // The stream owns the handle from here and closes it when done or destroyed.
        return reply.send(handle.createReadStream());
      } catch (error) {
        await handle.close().catch(() => undefined);
        throw error;
      }
    },
  });
};
