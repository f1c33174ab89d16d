import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import { notFound } from '../../platform/http/errors.js';
import { fileInside } from '../../platform/http/static-files.js';
import { isValidMediaKey, MEDIA_CACHE_CONTROL } from './media.storage.js';

export interface MediaRoutesOptions {
  /** The local media folder (localMediaRoot(DATA_DIR)). */
  root: string;
}

/**
 * GET /media/* for the local driver: immutable, content-addressed files with a year-long cache,
 * sent by @fastify/static (ETag, Last-Modified, 304, HEAD, ranges). Keys are checked against the
 * same pattern storage uses (no `..`, no absolute path, no encoded separator, no hidden file) before
 * the file system is touched; a missing file, or a link leading out of the folder, is the API's 404.
 */
export const mediaRoutes: FastifyPluginAsync<MediaRoutesOptions> = async (app, options) => {
  const root = path.resolve(options.root);
  // The folder appears with the first image stored: its absence now is not worth a warning.
  await app.register(fastifyStatic, { root, serve: false, suppressWarning: true });

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
      const file = await fileInside(root, key);
      if (!file) throw notFound('media');
      return (
        reply
          .header('cache-control', MEDIA_CACHE_CONTROL)
          // Product images are embedded by storefronts on other origins (headless shops, apps).
          .header('cross-origin-resource-policy', 'cross-origin')
          .sendFile(file, root, { cacheControl: false, dotfiles: 'deny' })
      );
    },
  });
};
