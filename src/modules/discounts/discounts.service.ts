import type { Db, Executor } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { conflict, invalidRequest, notFound } from '../../platform/http/errors.js';
import { type IfMatch, nextVersionTime, requireMatch } from '../../platform/http/etag.js';
import { parseMoney } from '../../platform/http/money-input.js';
import { recordIdempotentResource } from '../../platform/idempotency.js';
import { isUuid, newId } from '../../platform/ids.js';
import { currencyDecimals, toDecimalString } from '../../platform/money.js';
import { checkKnownIds, checkWindow, parseValue } from './discount-input.js';
import * as repo from './discounts.repository.js';
import type { DiscountCreateInput, DiscountUpdateInput } from './discounts.schemas.js';
import { discountForMerchant, discountRule } from './discounts.serializers.js';
import { bestAutomatic, type Cart, describeReason, evaluate, type IneligibleReason } from './evaluate.js';

export interface DiscountsDeps {
  db: Db;
  /** Store settings (the currency's decimals). */
  stores: { getStore(storeId: string): Promise<{ currency: string }> };
  /** Which ids name products / categories of the store (the catalogue owns those tables). */
  catalog: {
    existingProductIds(storeId: string, ids: string[]): Promise<Set<string>>;
    existingCategoryIds(storeId: string, ids: string[]): Promise<Set<string>>;
  };
}

/** The discount an order uses: what checkout subtracts and what it records. */
export interface AppliedDiscount {
  discountId: string;
  /** The code as the merchant spelled it; null for an automatic discount. */
  code: string | null;
  /** Minor units off the subtotal (0 for free shipping). */
  amount: number;
  freeShipping: boolean;
}

/** The cart as checkout knows it; whether the customer already redeemed is looked up here. */
export type CheckoutCart = Omit<Cart, 'customerHasRedeemed'>;

export interface ResolveInput {
  /** A coupon code (trimmed; case-insensitive). Empty or absent: the best automatic discount. */
  code?: string | null;
  customerId?: string | null;
  cart: CheckoutCart;
  /** The request field that carried the code, named in the 400's details (`coupon_code`, `couponCode`). */
  field: string;
  /** The evaluation time; defaults to now. */
  now?: Date;
  /**
   * The automatic candidates at `now`, already read by the caller's readTogether (the rows of
   * `automaticQuery`, as JSON); absent: read here.
   */
  automatic?: unknown[];
}

export function createDiscountsService({ db, stores, catalog }: DiscountsDeps) {
  async function decimalsOf(storeId: string) {
    return currencyDecimals((await stores.getStore(storeId)).currency);
  }

  async function requireDiscount(storeId: string, id: string) {
    const row = isUuid(id) ? await repo.findDiscount(db, storeId, id) : undefined;
    if (!row) throw notFound('discount');
    return row;
  }

  /**
   * Every id must name a product / category of the store, except ids the discount already lists:
   * a product deleted since stays listed (matching nothing) and re-sending the list still works.
   */
  async function checkTargets(
    storeId: string,
    productIds: string[] | undefined,
    categoryIds: string[] | undefined,
    current: repo.DiscountTargets = { productIds: [], categoryIds: [] },
  ) {
    if (productIds) {
      const fresh = productIds.filter((id) => !current.productIds.includes(id));
      const known = await catalog.existingProductIds(storeId, fresh.filter(isUuid));
      checkKnownIds('product_ids', fresh, known);
    }
    if (categoryIds) {
      const fresh = categoryIds.filter((id) => !current.categoryIds.includes(id));
      const known = await catalog.existingCategoryIds(storeId, fresh.filter(isUuid));
      checkKnownIds('category_ids', fresh, known);
    }
  }

  async function invalidCoupon(
    storeId: string,
    code: string,
    reason: IneligibleReason | 'unknown',
    field: string,
    minSubtotal?: number | null,
  ) {
    let message = reason === 'unknown' ? 'no discount has this code' : describeReason(reason);
    if (reason === 'below_minimum' && minSubtotal != null) {
      message = `the order subtotal is below its minimum of ${toDecimalString(minSubtotal, await decimalsOf(storeId))}`;
    }
    const shown = code.length > 100 ? `${code.slice(0, 100)}…` : code;
    return invalidRequest(`coupon code "${shown}" is not valid: ${message}`, [{ field, message }]);
  }

  return {
    async list(ctx: RequestContext, page: PageRequest, filter: repo.DiscountFilter) {
      const [{ rows, total }, decimals] = await Promise.all([
        repo.listDiscounts(db, ctx.storeId, filter, { offset: offsetOf(page), limit: page.limit }),
        decimalsOf(ctx.storeId),
      ]);
      return { data: rows.map((r) => discountForMerchant(r, decimals)), total };
    },

    async get(ctx: RequestContext, id: string) {
      const [row, decimals] = await Promise.all([requireDiscount(ctx.storeId, id), decimalsOf(ctx.storeId)]);
      return discountForMerchant(row, decimals);
    },

    async create(ctx: RequestContext, input: DiscountCreateInput) {
      const storeId = ctx.storeId;
      const decimals = await decimalsOf(storeId);
      const code = input.code ?? null;
      const title = input.title?.trim() ?? code;
      if (!title) {
        throw invalidRequest('title is required for an automatic discount', [
          { field: 'title', message: 'is required for an automatic discount' },
        ]);
      }
      const value = parseValue(input.type, input.value, decimals);
      const minSubtotal =
        input.min_subtotal == null ? null : parseMoney(input.min_subtotal, 'min_subtotal', decimals);
      const now = new Date();
      const startsAt = input.starts_at === undefined ? now : new Date(input.starts_at);
      const endsAt = input.ends_at == null ? null : new Date(input.ends_at);
      checkWindow(startsAt, endsAt);
      const productIds = input.product_ids ?? [];
      const categoryIds = input.category_ids ?? [];
      await checkTargets(storeId, productIds, categoryIds);

      const id = newId();
      await inTransaction(db, async (tx) => {
        await repo.insertDiscount(tx, {
          id,
          store_id: storeId,
          code,
          title,
          type: input.type,
          value,
          min_subtotal: minSubtotal,
          starts_at: startsAt,
          ends_at: endsAt,
          usage_limit: input.usage_limit ?? null,
          once_per_customer: input.once_per_customer ?? false,
          active: input.active ?? true,
          created_at: now,
          updated_at: now,
        });
        await repo.replaceTargets(tx, storeId, id, { productIds, categoryIds });
        await recordIdempotentResource(tx, ctx.idempotency, { type: 'discount', id });
      });
      return discountForMerchant(await requireDiscount(storeId, id), decimals);
    },

    async update(ctx: RequestContext, id: string, input: DiscountUpdateInput, ifMatch?: IfMatch) {
      const storeId = ctx.storeId;
      const current = await requireDiscount(storeId, id);
      const decimals = await decimalsOf(storeId);
      const type = input.type ?? current.type;
      // A new type needs its own value (a percentage is no amount); free shipping's is always 0.
      const value =
        input.value !== undefined || type !== current.type
          ? parseValue(type, input.value, decimals)
          : undefined;
      const minSubtotal =
        input.min_subtotal === undefined
          ? undefined
          : input.min_subtotal === null
            ? null
            : parseMoney(input.min_subtotal, 'min_subtotal', decimals);
      const startsAt = input.starts_at === undefined ? current.starts_at : new Date(input.starts_at);
      const endsAt =
        input.ends_at === undefined
          ? current.ends_at
          : input.ends_at === null
            ? null
            : new Date(input.ends_at);
      checkWindow(startsAt, endsAt);
      await checkTargets(storeId, input.product_ids, input.category_ids, current);

      await inTransaction(db, async (tx) => {
        // The row lock comes first: it makes concurrent edits of the lists take turns.
        const locked = await repo.lockDiscount(tx, storeId, id);
        if (!locked) throw notFound('discount');
        requireMatch(ifMatch, locked);
        const updated = await repo.updateDiscount(tx, storeId, id, {
          ...(input.code !== undefined ? { code: input.code } : {}),
          ...(input.title !== undefined ? { title: input.title.trim() } : {}),
          type,
          ...(value !== undefined ? { value } : {}),
          ...(minSubtotal !== undefined ? { min_subtotal: minSubtotal } : {}),
          starts_at: startsAt,
          ends_at: endsAt,
          ...(input.usage_limit !== undefined ? { usage_limit: input.usage_limit } : {}),
          ...(input.once_per_customer !== undefined ? { once_per_customer: input.once_per_customer } : {}),
          ...(input.active !== undefined ? { active: input.active } : {}),
          updated_at: nextVersionTime(locked.updated_at),
        });
        if (Number(updated.numUpdatedRows) === 0) throw notFound('discount');
        await repo.replaceTargets(tx, storeId, id, {
          productIds: input.product_ids,
          categoryIds: input.category_ids,
        });
      });
      return discountForMerchant(await requireDiscount(storeId, id), decimals);
    },

    async remove(ctx: RequestContext, id: string) {
      if (!isUuid(id) || !(await repo.deleteDiscount(db, ctx.storeId, id))) throw notFound('discount');
    },

    /**
     * The discount an order gets, evaluated inside the caller's transaction: with a code, that
     * discount or a 400 naming `field` and the reason; without one, the best eligible automatic
     * discount, or null.
     */
    /** The automatic candidates at `now` as one query of a readTogether (passed back as `automatic`). */
    automaticQuery: (tx: Executor, storeId: string, now: Date) => ({
      query: repo.automaticCandidatesCompiled(tx, storeId, now),
      orderBy: repo.AUTOMATIC_ORDER,
    }),

    async resolve(tx: Executor, storeId: string, input: ResolveInput): Promise<AppliedDiscount | null> {
      const now = input.now ?? new Date();
      const customerId = input.customerId && isUuid(input.customerId) ? input.customerId : null;
      const code = input.code?.trim();
      if (code) {
        const row = await repo.findDiscountByCode(tx, storeId, code);
        if (!row) throw await invalidCoupon(storeId, code, 'unknown', input.field);
        const redeemed =
          row.once_per_customer && customerId
            ? (await repo.redeemedByCustomer(tx, storeId, customerId, [row.id])).has(row.id)
            : false;
        const result = evaluate(discountRule(row), { ...input.cart, customerHasRedeemed: redeemed }, now);
        if (!result.eligible) {
          throw await invalidCoupon(storeId, code, result.reason, input.field, row.min_subtotal);
        }
        return {
          discountId: row.id,
          code: row.code,
          amount: result.amount,
          freeShipping: result.freeShipping,
        };
      }

      const candidates = input.automatic
        ? await repo.withTargets(tx, storeId, repo.discountsFromJson(input.automatic))
        : await repo.listAutomaticCandidates(tx, storeId, now);
      const rules = candidates.map(discountRule);
      if (rules.length === 0) return null;
      const oncePerCustomer = rules.filter((r) => r.oncePerCustomer).map((r) => r.id);
      const redeemed = customerId
        ? await repo.redeemedByCustomer(tx, storeId, customerId, oncePerCustomer)
        : new Set<string>();
      const best = bestAutomatic(rules, { ...input.cart, customerHasRedeemed: false }, now, redeemed);
      return (
        best && {
          discountId: best.discount.id,
          code: null,
          amount: best.amount,
          freeShipping: best.freeShipping,
        }
      );
    },

    /**
     * Counts one use of an applied discount inside the caller's order transaction (which must roll
     * back if this throws). The conditional increment holds the discount's row lock until that
     * transaction ends, so concurrent checkouts take turns: the usage limit is never exceeded and
     * the once-per-customer check below sees every earlier committed redemption.
     *
     * A coupon found used up (or used by this customer) here is refused exactly as the evaluation
     * refuses it, 400 naming `order.field`: which of the two saw it first is timing, not meaning.
     * An automatic discount the shopper did not ask for has no field to name: 409, the price changed.
     */
    async redeem(
      tx: Executor,
      storeId: string,
      applied: Pick<AppliedDiscount, 'discountId'> & { code?: string | null },
      order: { customerId: string | null; orderId: string; field: string },
    ): Promise<{ redemptionId: string; usageCount: number }> {
      const counted = await repo.incrementUsage(tx, storeId, applied.discountId);
      if (!counted) {
        const current = await repo.discountCode(tx, storeId, applied.discountId);
        const code = applied.code ?? current?.code;
        if (!current) {
          if (code) throw await invalidCoupon(storeId, code, 'unknown', order.field);
          throw conflict('the discount no longer exists');
        }
        if (code) throw await invalidCoupon(storeId, code, 'usage_limit_reached', order.field);
        throw conflict('the automatic discount reached its usage limit; quote again');
      }
      if (counted.once_per_customer && order.customerId) {
        const earlier = await repo.redeemedByCustomer(tx, storeId, order.customerId, [applied.discountId]);
        if (earlier.size > 0) {
          const code = applied.code ?? counted.code;
          if (code) throw await invalidCoupon(storeId, code, 'already_redeemed', order.field);
          throw conflict('the automatic discount was already used by this customer; quote again');
        }
      }
      const redemption = await repo.insertRedemption(tx, {
        id: newId(),
        store_id: storeId,
        discount_id: applied.discountId,
        customer_id: order.customerId,
        order_id: order.orderId,
      });
      return { redemptionId: redemption.id, usageCount: counted.usage_count };
    },
  };
}

export type DiscountsService = ReturnType<typeof createDiscountsService>;
