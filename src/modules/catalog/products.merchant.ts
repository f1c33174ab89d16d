import type { Static } from 'typebox';
import type { ChangeCounter } from '../../platform/change-counter.js';
import type { Db, Executor, Tx } from '../../platform/db/database.js';
import type { CreatedKey } from '../../platform/db/keyset.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { conflict, invalidRequest, notFound } from '../../platform/http/errors.js';
import { type IfMatch, nextVersionTime, requireMatch } from '../../platform/http/etag.js';
import { parseMoney } from '../../platform/http/money-input.js';
import { recordIdempotentResource } from '../../platform/idempotency.js';
import { isUuid, newId } from '../../platform/ids.js';
import { currencyDecimals } from '../../platform/money.js';
import type { InventoryService } from '../inventory/index.js';
import type { StoresService } from '../stores/index.js';
import type { ProductUpdateBody } from './catalog.schemas.js';
import { type MerchantStore, productForMerchant } from './catalog.serializers.js';
import type { ProductOption } from './catalog.tables.js';
import * as categories from './categories.repository.js';
import {
  checkOptions,
  keepOmittedVariantFields,
  type ProductInput,
  parseMedia,
  parseVariants,
} from './product-input.js';
import { createProductMedia, type ImageRehoster, mediaRows } from './products.media.js';
import * as repo from './products.repository.js';
import { createVariantSync } from './products.variants.js';
import { slugify } from './slug.js';

export type ProductUpdate = Static<typeof ProductUpdateBody>;

/** The merchant's products (/api/v1/products): list, read, create, update, delete. */
export function createMerchantProducts({
  db,
  stores,
  inventory,
  media,
  changes,
}: {
  db: Db;
  stores: StoresService;
  inventory: InventoryService;
  media: ImageRehoster;
  /** Bumped after each committed change, so caches of shop pages drop the store's (see ChangeCounter). */
  changes?: ChangeCounter;
}) {
  const { resolveMedia } = createProductMedia(media);
  const { setLevel, syncVariants } = createVariantSync(inventory);

  async function decimalsOf(storeId: string) {
    return currencyDecimals((await stores.getStore(storeId)).currency);
  }

  async function merchantStoreOf(storeId: string): Promise<MerchantStore> {
    const store = await stores.getStore(storeId);
    return { decimals: currencyDecimals(store.currency), lowStockThreshold: store.low_stock_threshold };
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
  async function uniqueSlug(tx: Tx, storeId: string, base: string, exceptId?: string) {
    await repo.lockSlugBase(tx, storeId, base);
    for (let n = 1; n < 1000; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      if (!(await repo.slugTaken(tx, storeId, candidate, exceptId))) return candidate;
    }
    return `${base}-${newId().slice(-8)}`;
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

  async function get(ctx: RequestContext, id: string) {
    const { row, details } = await load(db, ctx.storeId, id);
    return productForMerchant(row, details, await merchantStoreOf(ctx.storeId));
  }

  return {
    /** A page by number, or after a cursor's key (`after`); `lastKey` is the next cursor's. */
    async list(ctx: RequestContext, page: PageRequest & { after?: CreatedKey }, filter: repo.ProductFilter) {
      if (filter.categoryId && !isUuid(filter.categoryId))
        return { data: [], total: 0, more: false, lastKey: undefined };
      const store = await merchantStoreOf(ctx.storeId);
      const listed = await repo.listProducts(db, ctx.storeId, filter, {
        offset: offsetOf(page),
        limit: page.limit,
        after: page.after,
      });
      const { rows, total, more } = listed;
      const last = rows.at(-1);
      const details =
        listed.details ??
        (await repo.listDetails(
          db,
          ctx.storeId,
          rows.map((r) => r.id),
        ));
      return {
        data: rows.map((r) =>
          productForMerchant(r, details.get(r.id) ?? { variants: [], media: [], categoryIds: [] }, store),
        ),
        total,
        more,
        lastKey: last ? { t: last.created_us, i: last.id } : undefined,
      };
    },

    get,

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
            weight_grams: input.weight_grams ?? 0,
            taxable: input.taxable ?? true,
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
        changes?.bump(storeId);
        return get(ctx, id);
      } catch (error) {
        await hosted.discard();
        throw error;
      }
    },

    async update(ctx: RequestContext, id: string, input: ProductUpdate, ifMatch?: IfMatch) {
      const storeId = ctx.storeId;
      const decimals = await decimalsOf(storeId);
      const current = await load(db, storeId, id);
      // Early, before any image is fetched; the check that counts is the one under the lock.
      requireMatch(ifMatch, current.row);
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
          requireMatch(ifMatch, locked);
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
            ...(input.weight_grams !== undefined ? { weight_grams: input.weight_grams } : {}),
            ...(input.taxable !== undefined ? { taxable: input.taxable } : {}),
            ...(input.options !== undefined ? { options: JSON.stringify(options) } : {}),
            updated_at: nextVersionTime(locked.updated_at),
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
      changes?.bump(storeId);
      return get(ctx, id);
    },

    async remove(ctx: RequestContext, id: string) {
      if (!isUuid(id) || !(await repo.deleteProduct(db, ctx.storeId, id))) throw notFound('product');
      changes?.bump(ctx.storeId);
    },
  };
}
