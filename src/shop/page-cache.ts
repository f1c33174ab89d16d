import type { FastifyReply } from 'fastify';
import type { ChangeCounter } from '../platform/change-counter.js';
import { type CachedBody, createResponseCache } from '../platform/http/response-cache.js';
import { sendHtml } from './render.js';
import type { ShopContext } from './shop-context.js';

/** Rendered pages weigh 5 to 60 KB: this bounds the cache to a few tens of MB. */
const MAX_ENTRIES = 1_000;

const CONTENT_TYPES = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  text: 'text/plain; charset=utf-8',
} as const;

/**
 * Rendered public pages of the shop (response-cache.ts: a few seconds, keyed by the store's
 * catalogue version). The key also holds the store's face (name, colours, logo) and the address the
 * shop is served at.
 */
export function createPageCache(options: {
  changes: ChangeCounter;
  ttlMs?: number;
  now?: () => number;
  random?: () => number;
}) {
  const cache = createResponseCache({ ...options, maxEntries: MAX_ENTRIES });
  return {
    size: cache.size,
    /** The answer for `path` (normalised by the caller: only the parameters that change the page). */
    get(shop: ShopContext, path: string, type: CachedBody['type'], render: () => Promise<string>) {
      const key = JSON.stringify([shop.home, shop.origin, shop.base, path, shop.store]);
      return cache.get(shop.store.id, key, type, render);
    },
  };
}

export type PageCache = ReturnType<typeof createPageCache>;

/** Sends a cached answer with its ETag (the public-caching hook then answers 304 when it matches). */
export function sendCached(reply: FastifyReply, page: CachedBody) {
  reply.header('etag', page.etag);
  if (page.type === 'html') return sendHtml(reply, page.body, { cache: 'public' });
  return reply
    .code(200)
    .type(CONTENT_TYPES[page.type])
    .header('cache-control', 'public, max-age=30')
    .send(page.body);
}
