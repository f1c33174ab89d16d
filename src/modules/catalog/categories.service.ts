import type { Static } from 'typebox';
import type { ChangeCounter } from '../../platform/change-counter.js';
import type { Db, Tx } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { invalidRequest, notFound } from '../../platform/http/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import type { CategoryCreateBody, CategoryUpdateBody } from './catalog.schemas.js';
import * as repo from './categories.repository.js';
import { slugify } from './slug.js';

/** `changes` is bumped per store after each committed change (shop pages list the categories). */
export function createCategoriesService(db: Db, changes?: ChangeCounter) {
  async function requireParent(storeId: string, parentId: string | null | undefined, selfId?: string) {
    if (parentId == null) return;
    const found = isUuid(parentId) ? await repo.findCategory(db, storeId, parentId) : undefined;
    if (!found)
      throw invalidRequest('parent_id does not name a category of this store', [
        { field: 'parent_id', message: 'unknown id' },
      ]);
    if (selfId && (await repo.ancestorIds(db, storeId, parentId)).includes(selfId)) {
      throw invalidRequest('a category cannot be placed under itself or its descendants', [
        { field: 'parent_id', message: 'cycle' },
      ]);
    }
  }

  async function requireCategory(storeId: string, id: string) {
    const row = isUuid(id) ? await repo.findCategory(db, storeId, id) : undefined;
    if (!row) throw notFound('category');
    return row;
  }

  /** A slug generated from the name gets a `-2`, `-3`… suffix when taken, as products do. */
  async function uniqueSlug(tx: Tx, storeId: string, base: string) {
    await repo.lockSlugBase(tx, storeId, base);
    for (let n = 1; n < 1000; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      if (!(await repo.slugTaken(tx, storeId, candidate))) return candidate;
    }
    return `${base}-${newId().slice(-8)}`;
  }

  return {
    /** Which of these ids name categories of the store. */
    existingIds: (storeId: string, ids: string[]) =>
      repo.existingCategoryIds(db, storeId, ids.filter(isUuid)),

    list: (
      storeId: string,
      page: PageRequest,
      options: { activeOnly?: boolean; parentId?: string | null } = {},
    ) => repo.listCategories(db, storeId, { offset: offsetOf(page), limit: page.limit }, options),

    get: (ctx: RequestContext, id: string) => requireCategory(ctx.storeId, id),

    async create(ctx: RequestContext, input: Static<typeof CategoryCreateBody>) {
      await requireParent(ctx.storeId, input.parent_id);
      const now = new Date();
      const { id } = await inTransaction(db, async (tx) =>
        repo.insertCategory(tx, {
          id: newId(),
          store_id: ctx.storeId,
          name: input.name.trim(),
          slug: input.slug ?? (await uniqueSlug(tx, ctx.storeId, slugify(input.name))),
          description: input.description ?? '',
          parent_id: input.parent_id ?? null,
          position: input.position ?? 0,
          created_at: now,
          updated_at: now,
        }),
      );
      changes?.bump(ctx.storeId);
      return requireCategory(ctx.storeId, id);
    },

    async update(ctx: RequestContext, id: string, input: Static<typeof CategoryUpdateBody>) {
      await requireCategory(ctx.storeId, id);
      await requireParent(ctx.storeId, input.parent_id, id);
      await repo.updateCategory(db, ctx.storeId, id, {
        ...input,
        ...(input.name !== undefined ? { name: input.name.trim() } : {}),
        updated_at: new Date(),
      });
      changes?.bump(ctx.storeId);
      return requireCategory(ctx.storeId, id);
    },

    async remove(ctx: RequestContext, id: string) {
      if (!isUuid(id) || !(await repo.deleteCategory(db, ctx.storeId, id))) throw notFound('category');
      changes?.bump(ctx.storeId);
    },
  };
}

export type CategoriesService = ReturnType<typeof createCategoriesService>;
