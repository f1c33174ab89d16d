import { createHash } from 'node:crypto';
import type { ChangeCounter } from '../change-counter.js';
import { forgetExpired } from '../ttl-cache.js';

/** A rendered public answer: its body (UTF-8, encoded once), the ETag stored with it and its type. */
export interface CachedBody {
  body: Buffer;
  etag: string;
  type: 'html' | 'xml' | 'text' | 'json';
}

/**
 * 5 s: the longest an answer is served after the render that made it started (the bound of the
 * storefront list's cached totals). For the first 60–80% of it (drawn per render) an answer is fresh;
 * after that it is still served while one request renders it again in the background
 * (stale-while-revalidate), so a busy answer never makes a client wait for its re-render.
 */
export const RESPONSE_CACHE_TTL_MS = 5_000;
/**
 * The fresh part of the TTL, drawn per render: answers made together (a warm-up, the moment after a
 * catalogue change) would otherwise all turn stale, and then expire, at the same instant, and a
 * thousand product pages re-rendered at once are a latency spike (measured: p99 52 ms instead of
 * the list's 14 ms). The remaining 20–40% (1–2 s) leaves a busy answer time to be re-rendered.
 */
const FRESH_MIN = 0.6;
const FRESH_SPREAD = 0.2;
/**
 * Background re-renders running at once. Past it a stale answer is served without a refresh (until
 * its TTL ends): under load, re-renders of answers that can still be served must not take the
 * database pool and the CPU from the requests that wait for one the cache does not have.
 */
const MAX_REFRESHES = 4;

interface Entry {
  answer: Promise<CachedBody>;
  /** When the render started + 60–80% of the TTL: served as is until then. */
  freshUntil: number;
  /** When the render started + the TTL: never served after. */
  expiresAt: number;
  /** Settled successfully: only then may it be served stale. */
  ready: boolean;
  refreshing: boolean;
}

/**
 * Public answers derived from a store's catalogue, kept a few seconds: under load an answer renders
 * about once per half TTL, and concurrent misses share one render. The key holds the store's
 * catalogue version (ChangeCounter, carried between processes by the change feed), so a committed
 * change is not served from the cache afterwards; what the counter cannot see (a change made outside
 * Emporium) shows within the TTL. A failed render (a 404, the database away) is not kept.
 */
export function createResponseCache(options: {
  changes: ChangeCounter;
  ttlMs?: number;
  /** Bounds the memory: the oldest entry goes past it. */
  maxEntries: number;
  now?: () => number;
  /** A number in [0, 1) per render, placing its end of freshness (tests fix it). */
  random?: () => number;
}) {
  const ttl = options.ttlMs ?? RESPONSE_CACHE_TTL_MS;
  const now = options.now ?? (() => Date.now());
  const random = options.random ?? Math.random;
  const entries = new Map<string, Entry>();
  let refreshes = 0;

  /** Starts a render and files it under `key` (re-inserted: the Map's first key is the oldest). */
  function load(key: string, type: CachedBody['type'], render: () => Promise<string>): Entry {
    const started = now();
    const entry: Entry = {
      answer: render().then((text) => {
        const body = Buffer.from(text, 'utf8');
        return { body, type, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
      }),
      freshUntil: started + ttl * (FRESH_MIN + FRESH_SPREAD * random()),
      expiresAt: started + ttl,
      ready: false,
      refreshing: false,
    };
    entry.answer.then(
      () => {
        entry.ready = true;
      },
      () => {
        if (entries.get(key) === entry) entries.delete(key);
      },
    );
    if (ttl > 0) {
      forgetExpired(entries, started);
      entries.delete(key);
      entries.set(key, entry);
      if (entries.size > options.maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
    }
    return entry;
  }

  return {
    /** How many answers are held (expired ones go at the next render). */
    size: () => entries.size,
    /** The answer for `key` (which names everything, besides the store, that changes the answer). */
    get(storeId: string, key: string, type: CachedBody['type'], render: () => Promise<string>) {
      const fullKey = `${storeId} ${options.changes.version(storeId)} ${key}`;
      const at = now();
      const cached = entries.get(fullKey);
      if (cached && at < cached.freshUntil) return cached.answer;
      if (cached?.ready && at < cached.expiresAt) {
        if (!cached.refreshing && refreshes < MAX_REFRESHES) {
          cached.refreshing = true;
          refreshes++;
          const next = load(fullKey, type, render);
          // Until the new render is done, the old answer stays the one served.
          entries.set(fullKey, cached);
          next.answer.finally(() => refreshes--).catch(() => {});
          next.answer.then(
            () => {
              if (entries.get(fullKey) === cached) {
                entries.delete(fullKey);
                entries.set(fullKey, next);
              }
            },
            () => {
              cached.refreshing = false;
            },
          );
        }
        return cached.answer;
      }
      return load(fullKey, type, render).answer;
    },
  };
}

export type ResponseCache = ReturnType<typeof createResponseCache>;
