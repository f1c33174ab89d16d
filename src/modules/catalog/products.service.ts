import type { Static } from 'typebox';
import type { Db, Executor } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { conflict, invalidRequest, notFound } from '../../platform/http/errors.js';
import { parseMoney } from '../../platform/http/money-input.js';
import { recordIdempotentResource } from '../../platform/idempotency.js';
import { isUuid, newId } from '../../platform/ids.js';
import { currencyDecimals } from '../../platform/money.js';
import { TtlCache } from '../../platform/ttl-cache.js';
import type { InventoryService } from '../inventory/index.js';
import { MediaError } from '../media/index.js';
import type { StoresService } from '../stores/index.js';
import type { ProductUpdateBody } from './catalog.schemas.js';
import {
  productForMerchant,
  productPageForStorefront,
  productSummaryForStorefront,
} from './catalog.serializers.js';
import type { ProductOption } from './catalog.tables.js';
import * as categories from './categories.repository.js';
import {
  checkOptions,
  keepOmittedVariantFields,
  type ParsedMedia,
  type ProductInput,
  parseMedia,
  parseVariants,
} from './product-input.js';
import * as repo from './products.repository.js';
import { slugify } from './slug.js';

export type ProductUpdate = Static<typeof ProductUpdateBody>;

export interface OrderableVariant {
  id: string;
  title: string;
  price: number;
  sku: string | null;
}

export interface OrderableProduct {
  id: string;
  name: string;
  status: string;
  price: number;
  sku: string | null;
  categoryIds: string[];
  variants: Map<string, OrderableVariant>;
}

/** What the catalogue needs of the media pipeline: re-host images, undo on failure. */
export interface ImageRehoster {
  rehostImages(
    urls: string[],
  ): Promise<{ images: { sourceUrl: string; url: string }[]; discard(): Promise<void> }>;
}

export interface ProductsDeps {
  db: Db;
  stores: StoresService;
  inventory: InventoryService;
  media: ImageRehoster;
  /** How long a storefront list total is reused (see storefrontPage); 5 s by default, 0 disables. */
  storefrontTotalTtlMs?: number;
}

export function createProductsService({
  db,
  stores,
  inventory,
  media,
  storefrontTotalTtlMs = 5_000,
}: ProductsDeps) {
  async function decimalsOf(storeId: string) {
    return currencyDecimals((await stores.getStore(storeId)).currency);
  }

  async function requireCategories(tx: Executor, storeId: string, ids: string[]) {
    const valid = ids.filter(isUuid);
    const found = await categories.existingCategoryIds(tx, storeId, valid);
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length) {
      throw invalidRequest(`unknown category id(s): ${missing.join(', ')}`, [
        { field: 'category_ids', message: 'unknown id' },
      ]);
    }
  }

  /** Call inside the creating transaction: the lock it takes lasts until that commits. */
  async function uniqueSlug(tx: Executor, storeId: string, base: string, exceptId?: string) {
    await repo.lockSlugBase(tx, storeId, base);
    for (let n = 1; n < 1000; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      if (!(await repo.slugTaken(tx, storeId, candidate, exceptId))) return candidate;
    }
    return `${base}-${newId().slice(-8)}`;
  }

  /** Downloads and re-hosts the images when asked; videos always keep their URL. */
  async function resolveMedia(items: ParsedMedia[], download: boolean) {
    const urls = download ? [...new Set(items.filter((m) => m.mediaType === 'image').map((m) => m.url))] : [];
    if (urls.length === 0) return { items, discard: async () => {} };
    let hosted: Awaited<ReturnType<ImageRehoster['rehostImages']>>;
    try {
      hosted = await media.rehostImages(urls);
    } catch (error) {
      if (error instanceof MediaError) {
        throw invalidRequest(error.message, [{ field: 'images', message: `${error.reason}: ${error.url}` }]);
      }
      throw error;
    }
    const byUrl = new Map(hosted.images.map((i) => [i.sourceUrl, i.url]));
    return {
      items: items.map((m) =>
        m.mediaType === 'image' ? { ...m, sourceUrl: m.url, url: byUrl.get(m.url) ?? m.url } : m,
      ),
      discard: hosted.discard,
    };
  }

  function mediaRows(storeId: string, productId: string, items: (ParsedMedia & { sourceUrl?: string })[]) {
    return items.map((m) => ({
      id: newId(),
      store_id: storeId,
      product_id: productId,
      media_type: m.mediaType,
      url: m.url,
      source_url: m.sourceUrl ?? null,
      alt: m.alt,
      is_primary: m.mediaType === 'image' && m.isPrimary,
      position: m.position,
    }));
  }

  async function load(tx: Executor, storeId: string, id: string) {
    const row = isUuid(id) ? await repo.findProduct(tx, storeId, id) : undefined;
    if (!row) throw notFound('product');
    const details = (await repo.loadDetails(tx, storeId, [id])).get(id) ?? {
      variants: [],
      media: [],
      categoryIds: [],
    };
    return { row, details };
  }

  /**
   * Moves stock through the inventory module, so the history stays exact. An edit makes several
   * moves (stock handed to new variants, removed variants, …): their events are recorded once, for
   * the net change, by recordCrossings at the end of the transaction.
   */
  async function setLevel(
    tx: Executor,
    storeId: string,
    target: { productId: string; variantId?: string },
    current: number,
    wanted: number,
  ) {
    if (wanted === current) return;
    await inventory.applyChange(tx, storeId, {
      productId: target.productId,
      variantId: target.variantId,
      delta: wanted - current,
      reason: 'product update',
      source: 'product_update',
      events: false,
    });
  }

  async function syncVariants(
    tx: Executor,
    storeId: string,
    productId: string,
    existing: repo.VariantRow[],
    wanted: ReturnType<typeof parseVariants>,
  ) {
    const byId = new Map(existing.map((v) => [v.id, v]));
    for (const v of wanted) {
      if (v.id && !byId.has(v.id))
        throw invalidRequest(`unknown variant id ${v.id}`, [{ field: 'variants', message: 'unknown id' }]);
    }
    const kept = new Set(wanted.flatMap((v) => (v.id ? [v.id] : [])));
    // Removed variants give their stock back first, so the product total stays the sum of variants.
    for (const old of existing) {
      if (!kept.has(old.id)) await setLevel(tx, storeId, { productId, variantId: old.id }, old.inventory, 0);
    }
    await repo.deleteVariantsExcept(tx, storeId, productId, [...kept]);
    const now = new Date();
    for (const [position, v] of wanted.entries()) {
      const fields = {
        title: v.title,
        sku: v.sku,
        price: v.price,
        compare_price: v.comparePrice,
        options: JSON.stringify(v.options),
        position,
        updated_at: now,
      };
      const old = v.id ? byId.get(v.id) : undefined;
      if (old) {
        await repo.updateVariant(tx, storeId, old.id, fields);
        if (v.inventory !== undefined)
          await setLevel(tx, storeId, { productId, variantId: old.id }, old.inventory, v.inventory);
      } else {
        const id = newId();
        await repo.insertVariants(tx, [
          { id, store_id: storeId, product_id: productId, inventory: 0, created_at: now, ...fields },
        ]);
        await setLevel(tx, storeId, { productId, variantId: id }, 0, v.inventory ?? 0);
      }
    }
  }

  /**
   * Totals of the storefront list, per (store, category, search). The exact count visits every
   * matching product: ~2 ms of database CPU per request at 10,000 products, most of the list's cost.
   * The list is public and served with `Cache-Control: public, max-age=30`, so a total that lags
   * catalogue changes by a few seconds is what a CDN would show anyway (docs/decisions.md).
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
    const key = JSON.stringify([storeId, filter.categorySlug || '', filter.q || '']);
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
    async list(ctx: RequestContext, page: PageRequest, filter: repo.ProductFilter) {
      if (filter.categoryId && !isUuid(filter.categoryId)) return { data: [], total: 0 };
      const decimals = await decimalsOf(ctx.storeId);
      const { rows, total } = await repo.listProducts(db, ctx.storeId, filter, {
        offset: offsetOf(page),
        limit: page.limit,
      });
      const details = await repo.loadDetails(
        db,
        ctx.storeId,
        rows.map((r) => r.id),
      );
      return {
        data: rows.map((r) =>
          productForMerchant(r, details.get(r.id) ?? { variants: [], media: [], categoryIds: [] }, decimals),
        ),
        total,
      };
    },

    async get(ctx: RequestContext, id: string) {
      const { row, details } = await load(db, ctx.storeId, id);
      return productForMerchant(row, details, await decimalsOf(ctx.storeId));
    },

    async create(ctx: RequestContext, input: ProductInput) {
      const storeId = ctx.storeId;
      const decimals = await decimalsOf(storeId);
      const price = parseMoney(input.price, 'price', decimals);
      const comparePrice =
        input.compare_price == null ? null : parseMoney(input.compare_price, 'compare_price', decimals);
      const options: ProductOption[] = input.options ?? [];
      checkOptions(options);
      const variants = parseVariants(input.variants ?? [], options, price, decimals);
      const withId = variants.findIndex((v) => v.id);
      if (withId >= 0)
        throw invalidRequest('new variants cannot carry an id', [
          { field: `variants.${withId}.id`, message: 'not allowed on create' },
        ]);
      if (variants.length > 0 && input.inventory !== undefined) {
        throw invalidRequest(
          'inventory of a product with variants is the sum of its variants; set it per variant',
          [{ field: 'inventory', message: 'not allowed with variants' }],
        );
      }
      const parsedMedia = parseMedia(input.images ?? []);
      if (input.slug && (await repo.slugTaken(db, storeId, input.slug)))
        throw conflict(`slug ${input.slug} is already used`);
      await requireCategories(db, storeId, input.category_ids ?? []);

      const hosted = await resolveMedia(parsedMedia, input.download_images === true);
      try {
        const id = await inTransaction(db, async (tx) => {
          const now = new Date();
          const id = newId();
          await repo.insertProduct(tx, {
            id,
            store_id: storeId,
            name: input.name.trim(),
            slug: input.slug ?? (await uniqueSlug(tx, storeId, slugify(input.name))),
            description: input.description ?? '',
            status: input.status ?? 'active',
            price,
            compare_price: comparePrice,
            sku: input.sku ?? null,
            inventory: 0,
            track_inventory: input.track_inventory ?? true,
            low_stock_threshold: input.low_stock_threshold ?? null,
            options: JSON.stringify(options),
            created_at: now,
            updated_at: now,
          });
          await repo.replaceMedia(tx, storeId, id, mediaRows(storeId, id, hosted.items));
          await repo.replaceCategories(tx, storeId, id, input.category_ids ?? []);
          if (variants.length) await syncVariants(tx, storeId, id, [], variants);
          else await setLevel(tx, storeId, { productId: id }, 0, input.inventory ?? 0);
          await recordIdempotentResource(tx, ctx.idempotency, { type: 'product', id });
          return id;
        });
        return this.get(ctx, id);
      } catch (error) {
        await hosted.discard();
        throw error;
      }
    },

    async update(ctx: RequestContext, id: string, input: ProductUpdate) {
      const storeId = ctx.storeId;
      const decimals = await decimalsOf(storeId);
      const current = await load(db, storeId, id);
      const price =
        input.price === undefined ? current.row.price : parseMoney(input.price, 'price', decimals);
      const options = input.options ?? current.row.options;
      checkOptions(options);
      const variantInput =
        input.variants && keepOmittedVariantFields(input.variants, current.details.variants, decimals);
      const variants =
        variantInput === undefined ? undefined : parseVariants(variantInput, options, price, decimals);
      if (input.options !== undefined && variants === undefined && current.details.variants.length > 0) {
        throw invalidRequest('changing options requires the variants to be given too', [
          { field: 'variants', message: 'required with options' },
        ]);
      }
      const willHaveVariants = variants ? variants.length > 0 : current.details.variants.length > 0;
      if (willHaveVariants && input.inventory !== undefined) {
        throw invalidRequest(
          'inventory of a product with variants is the sum of its variants; set it per variant',
          [{ field: 'inventory', message: 'not allowed with variants' }],
        );
      }
      if (input.slug && (await repo.slugTaken(db, storeId, input.slug, id)))
        throw conflict(`slug ${input.slug} is already used`);
      if (input.category_ids) await requireCategories(db, storeId, input.category_ids);
      const parsedMedia = input.images ? parseMedia(input.images) : undefined;
      const hosted = parsedMedia
        ? await resolveMedia(parsedMedia, input.download_images === true)
        : undefined;

      try {
        await inTransaction(db, async (tx) => {
          const locked = await repo.findProduct(tx, storeId, id, { forUpdate: true });
          if (!locked) throw notFound('product');
          await repo.updateProduct(tx, storeId, id, {
            ...(input.name !== undefined ? { name: input.name.trim() } : {}),
            ...(input.slug !== undefined ? { slug: input.slug } : {}),
            ...(input.description !== undefined ? { description: input.description } : {}),
            ...(input.status !== undefined ? { status: input.status } : {}),
            ...(input.price !== undefined ? { price } : {}),
            ...(input.compare_price !== undefined
              ? {
                  compare_price:
                    input.compare_price === null
                      ? null
                      : parseMoney(input.compare_price, 'compare_price', decimals),
                }
              : {}),
            ...(input.sku !== undefined ? { sku: input.sku } : {}),
            ...(input.track_inventory !== undefined ? { track_inventory: input.track_inventory } : {}),
            ...(input.low_stock_threshold !== undefined
              ? { low_stock_threshold: input.low_stock_threshold }
              : {}),
            ...(input.options !== undefined ? { options: JSON.stringify(options) } : {}),
            updated_at: new Date(),
          });
          if (hosted) await repo.replaceMedia(tx, storeId, id, mediaRows(storeId, id, hosted.items));
          if (input.category_ids) await repo.replaceCategories(tx, storeId, id, input.category_ids);
          if (variants) {
            // Read again under the product lock: the deltas must start from the committed levels.
            const existing = (await repo.loadDetails(tx, storeId, [id])).get(id)?.variants ?? [];
            // A product gaining variants hands its own stock over to them.
            if (existing.length === 0 && variants.length > 0) {
              await setLevel(tx, storeId, { productId: id }, locked.inventory, 0);
            }
            await syncVariants(tx, storeId, id, existing, variants);
          }
          if (input.inventory !== undefined) {
            const fresh = await repo.findProduct(tx, storeId, id);
            await setLevel(tx, storeId, { productId: id }, fresh?.inventory ?? 0, input.inventory);
          }
          await inventory.recordCrossings(tx, storeId, id, locked.inventory);
        });
      } catch (error) {
        await hosted?.discard();
        throw error;
      }
      return this.get(ctx, id);
    },

    /** Storefront: active products only, as list items with their primary image. */
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

    /** Which of these ids name products of the store (any status). */
    async existingIds(storeId: string, ids: string[]) {
      return new Set((await this.lookupForOrder(db, storeId, ids)).keys());
    },

    /** Whether the store has this product (any status): wishlists accept only real products. */
    async exists(storeId: string, productId: string) {
      return isUuid(productId) && (await repo.findProduct(db, storeId, productId)) !== undefined;
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

    async storefrontProduct(store: { id: string; currency: string }, slug: string) {
      const row = await repo.findProductBySlug(db, store.id, slug, 'active');
      if (!row) throw notFound('product');
      const details = (await repo.loadDetails(db, store.id, [row.id])).get(row.id) ?? {
        variants: [],
        media: [],
        categoryIds: [],
      };
      return productPageForStorefront(row, details, currencyDecimals(store.currency));
    },

    /**
     * The catalogue facts an order line is priced from, for the ids given (unknown ids are simply
     * absent). Runs on the caller's executor, so checkout reads them inside its transaction.
     */
    async lookupForOrder(tx: Executor, storeId: string, productIds: string[]) {
      const ids = [...new Set(productIds.filter(isUuid))];
      const found = await repo.findForOrder(tx, storeId, ids);
      const products = new Map<string, OrderableProduct>(
        found.map(({ variants, category_ids, ...p }) => [
          p.id,
          { ...p, categoryIds: category_ids, variants: new Map(variants.map((v) => [v.id, v])) },
        ]),
      );
      return products;
    },

    async remove(ctx: RequestContext, id: string) {
      if (!isUuid(id) || !(await repo.deleteProduct(db, ctx.storeId, id))) throw notFound('product');
    },
  };
}

export type ProductsService = ReturnType<typeof createProductsService>;
