import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { ChangeCounter } from '../platform/change-counter.js';
import { TtlCache } from '../platform/ttl-cache.js';
import { sendHtml } from './render.js';
import type { ShopContext } from './shop-context.js';

/** A rendered public answer: its body, the ETag stored with it and its type. */
export interface CachedBody {
  body: string;
  etag: string;
  type: 'html' | 'xml' | 'text';
}

/** 5 s, like the storefront list's cached totals: the longest a change made elsewhere goes unseen. */
export const PAGE_CACHE_TTL_MS = 5_000;
/** Rendered pages weigh 10 to 60 KB: this bounds the cache to a few tens of MB. */
const MAX_ENTRIES = 1_000;

const CONTENT_TYPES = {
  xml: 'application/xml; charset=utf-8',
  text: 'text/plain; charset=utf-8',
} as const;

/**
 * Rendered public pages of the shop, kept a few seconds: under load a page renders once per TTL,
 * and concurrent misses share one render (TtlCache holds the promise). The key holds the store's
 * catalogue version, bumped by the catalogue and stock services of this process, so a change made
 * here is never served from the cache; one made by another process shows within the TTL. It also
 * holds the store's face (name, colours, logo) and the address the shop is served at.
 */
export function createPageCache(options: { changes: ChangeCounter; ttlMs?: number }) {
  const cache = new TtlCache<CachedBody>({
    ttlMs: options.ttlMs ?? PAGE_CACHE_TTL_MS,
    maxEntries: MAX_ENTRIES,
  });

  function keyOf(shop: ShopContext, path: string): string {
    return JSON.stringify([
      shop.store.id,
      options.changes.version(shop.store.id),
      shop.origin,
      shop.base,
      path,
      shop.store,
    ]);
  }

  return {
    /** The answer for `path` (normalised by the caller: only the parameters that change the page). */
    get(shop: ShopContext, path: string, type: CachedBody['type'], render: () => Promise<string>) {
      return cache.getOrLoad(keyOf(shop, path), async () => {
        const body = await render();
        return { body, type, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
      });
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
