import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { ChangeCounter } from '../platform/change-counter.js';
import { sendHtml } from './render.js';
import type { ShopContext } from './shop-context.js';

/** A rendered public answer: its body, the ETag stored with it and its type. */
export interface CachedBody {
  body: string;
  etag: string;
  type: 'html' | 'xml' | 'text';
}

/**
 * 5 s, like the storefront list's cached totals: the longest a page is served after the render
 * that made it started. For its first half a page is fresh; in its second half it is still served,
 * while one request renders it again in the background (stale-while-revalidate), so a busy page
 * never makes a shopper wait for its re-render.
 */
export const PAGE_CACHE_TTL_MS = 5_000;
/** Rendered pages weigh 5 to 60 KB: this bounds the cache to a few tens of MB. */
const MAX_ENTRIES = 1_000;
/**
 * Background re-renders running at once. Past it a stale page is served without a refresh (until its
 * TTL ends): under load, re-renders of pages that can still be served must not take the database
 * pool and the CPU from the requests that wait for a page the cache does not have.
 */
const MAX_REFRESHES = 2;

const CONTENT_TYPES = {
  xml: 'application/xml; charset=utf-8',
  text: 'text/plain; charset=utf-8',
} as const;

interface Entry {
  page: Promise<CachedBody>;
  /** When the render started + half the TTL: served as is until then. */
  freshUntil: number;
  /** When the render started + the TTL: never served after. */
  expiresAt: number;
  /** Settled successfully: only then may it be served stale. */
  ready: boolean;
  refreshing: boolean;
}

/**
 * Rendered public pages of the shop, kept a few seconds: under load a page renders about once per
 * half TTL, and concurrent misses share one render. The key holds the store's catalogue version,
 * bumped by the catalogue and stock services of this process, so a change made here is never served
 * from the cache; one made by another process shows within the TTL. It also holds the store's face
 * (name, colours, logo) and the address the shop is served at.
 */
export function createPageCache(options: { changes: ChangeCounter; ttlMs?: number; now?: () => number }) {
  const ttl = options.ttlMs ?? PAGE_CACHE_TTL_MS;
  const now = options.now ?? (() => Date.now());
  const entries = new Map<string, Entry>();
  let refreshes = 0;

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

  /** Starts a render and files it under `key` (re-inserted: the Map's first key is the oldest). */
  function load(key: string, type: CachedBody['type'], render: () => Promise<string>): Entry {
    const started = now();
    const entry: Entry = {
      page: render().then((body) => ({
        body,
        type,
        etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
      })),
      freshUntil: started + ttl / 2,
      expiresAt: started + ttl,
      ready: false,
      refreshing: false,
    };
    entry.page.then(
      () => {
        entry.ready = true;
      },
      // A failed render (a 404, the database away) is forgotten at once: the next request retries.
      () => {
        if (entries.get(key) === entry) entries.delete(key);
      },
    );
    if (ttl > 0) {
      entries.delete(key);
      entries.set(key, entry);
      if (entries.size > MAX_ENTRIES) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
    }
    return entry;
  }

  return {
    /** The answer for `path` (normalised by the caller: only the parameters that change the page). */
    get(shop: ShopContext, path: string, type: CachedBody['type'], render: () => Promise<string>) {
      const key = keyOf(shop, path);
      const at = now();
      const cached = entries.get(key);
      if (cached && at < cached.freshUntil) return cached.page;
      if (cached?.ready && at < cached.expiresAt) {
        if (!cached.refreshing && refreshes < MAX_REFRESHES) {
          cached.refreshing = true;
          refreshes++;
          const next = load(key, type, render);
          // Until the new render is done, the old page stays the one served.
          entries.set(key, cached);
          next.page.finally(() => refreshes--).catch(() => {});
          next.page.then(
            () => {
              if (entries.get(key) === cached) {
                entries.delete(key);
                entries.set(key, next);
              }
            },
            () => {
              cached.refreshing = false;
            },
          );
        }
        return cached.page;
      }
      return load(key, type, render).page;
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
