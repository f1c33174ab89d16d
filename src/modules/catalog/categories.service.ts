import type { Static } from 'typebox';
import type { ChangeCounter } from '../../platform/change-counter.js';
import type { Db, Tx } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { conflict, invalidRequest, notFound } from '../../platform/http/errors.js';
import { type IfMatch, nextVersionTime, requireMatch } from '../../platform/http/etag.js';
import { recordIdempotentResource } from '../../platform/idempotency.js';
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

  /**
   * Two categories of one name under one parent could not be told apart in the dashboard or the
   * shop's menu: refused as a duplicate slug is. Call under lockCategoryNames.
   */
  async function refuseSiblingName(
    tx: Tx,
    storeId: string,
    parentId: string | null,
    name: string,
    selfId?: string,
  ) {
    const clash = await repo.siblingNamed(tx, storeId, parentId, name, selfId);
    if (clash)
      throw conflict(
        `a category named "${clash.name}" already exists ${parentId ? 'under this parent' : 'at the top level'}`,
      );
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
      const name = input.name.trim();
      const parentId = input.parent_id ?? null;
      const { id } = await inTransaction(db, async (tx) => {
        await repo.lockCategoryNames(tx, ctx.storeId);
        await refuseSiblingName(tx, ctx.storeId, parentId, name);
        const id = newId();
        await recordIdempotentResource(tx, ctx.idempotency, { type: 'category', id });
        return repo.insertCategory(tx, {
          id,
          store_id: ctx.storeId,
          name,
          slug: input.slug ?? (await uniqueSlug(tx, ctx.storeId, slugify(input.name))),
          description: input.description ?? '',
          parent_id: parentId,
          position: input.position ?? 0,
          created_at: now,
          updated_at: now,
        });
      });
      changes?.bump(ctx.storeId);
      return requireCategory(ctx.storeId, id);
    },

    async update(
      ctx: RequestContext,
      id: string,
      input: Static<typeof CategoryUpdateBody>,
      ifMatch?: IfMatch,
    ) {
      await requireCategory(ctx.storeId, id);
      await requireParent(ctx.storeId, input.parent_id, id);
      await inTransaction(db, async (tx) => {
        const renaming = input.name !== undefined || input.parent_id !== undefined;
        // The names' lock first, as a create takes it, then the row's.
        if (renaming) await repo.lockCategoryNames(tx, ctx.storeId);
        const locked = await repo.lockCategory(tx, ctx.storeId, id);
        if (!locked) throw notFound('category');
        requireMatch(ifMatch, locked);
        if (renaming) {
          const current = await repo.findCategory(tx, ctx.storeId, id);
          if (!current) throw notFound('category');
          const name = input.name?.trim() ?? current.name;
          const parentId = input.parent_id === undefined ? current.parent_id : input.parent_id;
          // Only a new name or place is checked: a duplicate from before this rule stays editable.
          if (name.toLowerCase() !== current.name.toLowerCase() || parentId !== current.parent_id)
            await refuseSiblingName(tx, ctx.storeId, parentId, name, id);
        }
        await repo.updateCategory(tx, ctx.storeId, id, {
          ...input,
          ...(input.name !== undefined ? { name: input.name.trim() } : {}),
          updated_at: nextVersionTime(locked.updated_at),
        });
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
