import type { ChangeCounter } from '../../platform/change-counter.js';
import type { Db } from '../../platform/db/database.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { notFound } from '../../platform/http/errors.js';
import { isUuid } from '../../platform/ids.js';
import { currencyDecimals } from '../../platform/money.js';
import { TtlCache } from '../../platform/ttl-cache.js';
import { productPageForStorefront, productSummaryForStorefront } from './catalog.serializers.js';
import * as repo from './products.repository.js';
import { activeProductUrls } from './sitemap.repository.js';

/** The storefront's reads: active products only. */
export function createStorefrontProducts({
  db,
  storefrontTotalTtlMs,
  changes,
}: {
  db: Db;
  /** How long a storefront list total is reused (see storefrontPage); 0 disables. */
  storefrontTotalTtlMs: number;
  /** The store's catalogue version: a committed change (in any process) starts new totals. */
  changes?: ChangeCounter;
}) {
  /**
   * Totals of the storefront list, per (store, category, search). The exact count visits every
   * matching product: ~2 ms of database CPU per request at 10,000 products, most of the list's cost.
   * The list is public and served with `Cache-Control: public, max-age=30`, so a total that lags
   * a change made behind Emporium's back by a few seconds is what a CDN would show anyway; the key
   * holds the catalogue version, so one made through Emporium is counted at once (docs/decisions.md).
   */
  const storefrontTotals = new TtlCache<number>({ ttlMs: storefrontTotalTtlMs, maxEntries: 10_000 });

  /** A page of active products, always read fresh, with a total at most one TTL old. */
  async function storefrontPage(
    storeId: string,
    filter: { categorySlug?: string; q?: string },
    page: { offset: number; limit: number },
    sort?: repo.ProductSort,
  ) {
    const where = { status: 'active' as const, categorySlug: filter.categorySlug, q: filter.q };
    // '' filters nothing, like an absent filter, so both share a key.
    const key = JSON.stringify([
      storeId,
      changes?.version(storeId) ?? '',
      filter.categorySlug || '',
      filter.q || '',
    ]);
    // On a miss the count runs alongside the page query, not after it.
    const [rows, cachedTotal] = await Promise.all([
      repo.listProductPage(db, storeId, where, page, sort),
      storefrontTotals.getOrLoad(key, () => repo.countProducts(db, storeId, where)),
    ]);
    // Keep the envelope consistent with the fresh rows: a short page ends the list, so it gives the
    // exact total; a full one shows there are at least that many; an empty page past the end shows
    // there are at most `offset`.
    let total: number;
    if (rows.length === page.limit) total = Math.max(cachedTotal, page.offset + rows.length);
    else if (rows.length > 0 || page.offset === 0) total = page.offset + rows.length;
    else total = Math.min(cachedTotal, page.offset);
    return { rows, total };
  }

  return {
    /** Storefront summaries of these products, in the order given; ones not active are left out. */
    async storefrontSummaries(store: { id: string; currency: string }, productIds: string[]) {
      const ids = productIds.filter(isUuid);
      if (ids.length === 0) return [];
      const [rows, images] = await Promise.all([
        repo.findActiveProducts(db, store.id, ids),
        repo.primaryImages(db, store.id, ids),
      ]);
      const byId = new Map(rows.map((r) => [r.id, r]));
      const decimals = currencyDecimals(store.currency);
      return ids.flatMap((id) => {
        const row = byId.get(id);
        return row ? [productSummaryForStorefront(row, images.get(id), decimals)] : [];
      });
    },

    async storefrontList(
      store: { id: string; currency: string },
      page: PageRequest,
      filter: { sort?: repo.ProductSort; categorySlug?: string; q?: string },
    ) {
      const decimals = currencyDecimals(store.currency);
      const { rows, total } = await storefrontPage(
        store.id,
        filter,
        { offset: offsetOf(page), limit: page.limit },
        filter.sort,
      );
      const images = await repo.primaryImages(
        db,
        store.id,
        rows.map((r) => r.id),
      );
      return { data: rows.map((r) => productSummaryForStorefront(r, images.get(r.id), decimals)), total };
    },

    /** The number of active products (exact: the sitemap splits into files by it). */
    storefrontCount: (storeId: string) => repo.countProducts(db, storeId, { status: 'active' }),

    /** Slugs and last changes of active products, oldest first, for the sitemap. */
    storefrontSitemap: (storeId: string, page: { offset: number; limit: number }) =>
      activeProductUrls(db, storeId, page),

    async storefrontProduct(store: { id: string; currency: string }, slug: string) {
      const found = await repo.findStorefrontPage(db, store.id, slug);
      if (!found) throw notFound('product');
      return productPageForStorefront(found.row, found.details, currencyDecimals(store.currency));
    },
  };
}
