import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db, Tx } from '../../platform/db/database.js';
import { deleteInBatches } from '../../platform/db/delete-in-batches.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { withStoredCountry } from '../../platform/http/country-input.js';
import {
  AppError,
  conflict,
  insufficientStock,
  invalidRequest,
  notFound,
} from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { PeriodicTaskOptions } from '../../platform/jobs.js';
import type { CheckoutInput, CheckoutService } from '../checkout/index.js';
import {
  availableLines,
  type CartContents,
  type CartPricingDeps,
  checkCartUpdate,
  isAvailable,
  loadContents,
  type PricedCartView,
  stockOf,
  viewCart,
} from './carts.pricing.js';
import * as repo from './carts.repository.js';
import type { CartAddress } from './carts.tables.js';

export interface CartsDeps extends CartPricingDeps {
  db: Db;
  checkout: CheckoutService;
}

/** Lines per cart and units per line: what one checkout accepts. */
const MAX_LINES = 100;
const MAX_QUANTITY = 10_000;

interface LineInput {
  productId: string;
  variantId?: string | null;
  quantity: number;
}

/** Where a line's fields are named in error details (`productId`, or `items.2.productId`). */
const fieldsAt = (prefix: string) => ({
  productId: `${prefix}productId`,
  variantId: `${prefix}variantId`,
  quantity: `${prefix}quantity`,
});

/** 192 random bits, URL-safe: the cart's id is its only credential (contract §9). */
const newCartId = () => randomBytes(24).toString('base64url');

const refuse = (field: string, message: string) =>
  invalidRequest(`${field}: ${message}`, [{ field, message }]);

export interface CartUpdate {
  email?: string | null;
  shippingAddress?: CartAddress | null;
  couponCode?: string | null;
  shippingRateId?: string | null;
}

export type CartChanges = Partial<
  Pick<repo.CartRow, 'email' | 'shipping_address' | 'coupon_code' | 'shipping_rate_id'>
>;

/** Server-side carts: lines that merge, a coupon, e-mail and address, completed into one order. */
export function createCartsService(deps: CartsDeps) {
  const { db } = deps;

  /**
   * Checks a line the shopper adds or changes against the catalogue as it is now (`facts`, read in
   * the change's transaction): the product is on sale (400), the variant choice fits it (400), and
   * its tracked stock covers the quantity (409 insufficient_stock). Nothing is reserved: the stock
   * is taken when the cart completes.
   */
  function checkLine(facts: CartContents['facts'], line: LineInput, prefix = '') {
    const at = fieldsAt(prefix);
    const product = facts.get(line.productId);
    const variantId = line.variantId ?? null;
    if (product?.status !== 'active') throw refuse(at.productId, 'unknown or unavailable product');
    if (!isAvailable(product, variantId))
      throw refuse(
        at.variantId,
        variantId ? 'not a variant of this product' : 'this product has variants: choose one',
      );
    if (line.quantity > MAX_QUANTITY) throw refuse(at.quantity, `at most ${MAX_QUANTITY} per line`);
    const stock = stockOf(product, variantId);
    if (stock !== null && line.quantity > stock)
      throw insufficientStock(`not enough stock of this product: ${stock} left`);
  }

  /**
   * One change of an open cart in one transaction: the cart's row is locked first (lock order in
   * docs/decisions.md), its lines, their products' facts and what pricing reads are read in one
   * statement (with those of `moreProductIds`), `change` returns the lines as they will be and the
   * write of the one line it changes, or new fields, the cart is re-priced as it now is (a coupon
   * that stopped applying is dropped), linked to the session's customer if any, and its line and
   * row are written in one statement, its `updated_at` (the start of its 30 days) moved.
   */
  function changeCart(
    ctx: RequestContext,
    cartId: string,
    customerId: string | undefined,
    change: (
      tx: Tx,
      cart: repo.CartRow,
      contents: CartContents,
    ) => Promise<{ changes?: CartChanges; items?: repo.CartItemRow[]; line?: repo.LineWrite } | undefined>,
    moreProductIds: string[] = [],
  ): Promise<PricedCartView> {
    return inTransaction(db, async (tx) => {
      const cart = await repo.lockCart(tx, ctx.storeId, cartId);
      if (!cart) throw notFound('cart');
      if (cart.status !== 'open') throw conflict('the cart is completed: start a new cart');
      const contents = await loadContents(deps, tx, cart, moreProductIds);
      const changed = await change(tx, cart, contents);
      const now = new Date();
      let next: repo.CartRow = {
        ...cart,
        ...changed?.changes,
        customer_id: customerId ?? cart.customer_id,
        updated_at: now,
      };
      let view = await viewCart(deps, tx, next, { ...contents, items: changed?.items ?? contents.items });
      if (next.coupon_code && view.priced && !view.couponCode) {
        next = { ...next, coupon_code: null };
        view = { ...view, cart: next };
      }
      // A chosen rate that stopped being an option (another address, a cart outside its
      // conditions) is dropped as a stale coupon is: the cart is priced at the cheapest option.
      if (next.shipping_rate_id && view.priced?.regional.shippingMethod?.rateId !== next.shipping_rate_id) {
        next = { ...next, shipping_rate_id: null };
        view = { ...view, cart: next };
      }
      await repo.writeCartChange(
        tx,
        ctx.storeId,
        cartId,
        changed?.line,
        {
          customer_id: next.customer_id,
          email: next.email,
          shipping_address: next.shipping_address ? JSON.stringify(next.shipping_address) : null,
          coupon_code: next.coupon_code,
          shipping_rate_id: next.shipping_rate_id,
        },
        now,
      );
      return view;
    });
  }

  return {
    /** POST /carts: a new cart, with lines (merged by product and variant) and an e-mail if given. */
    create(
      ctx: RequestContext,
      input: { items?: LineInput[]; email?: string | null },
      customerId?: string,
    ): Promise<PricedCartView> {
      return inTransaction(db, async (tx) => {
        const merged = new Map<string, LineInput & { index: number }>();
        (input.items ?? []).forEach((item, index) => {
          const key = `${item.productId}/${item.variantId ?? ''}`;
          const seen = merged.get(key);
          merged.set(key, seen ? { ...seen, quantity: seen.quantity + item.quantity } : { ...item, index });
        });
        const facts = await deps.products.cartFacts(
          tx,
          ctx.storeId,
          [...merged.values()].map((l) => l.productId),
        );
        for (const line of merged.values()) checkLine(facts, line, `items.${line.index}.`);
        const now = new Date();
        const cart: repo.CartRow = {
          store_id: ctx.storeId,
          id: newCartId(),
          status: 'open',
          customer_id: customerId ?? null,
          email: input.email ?? null,
          shipping_address: null,
          coupon_code: null,
          shipping_rate_id: null,
          order_id: null,
          created_at: now,
          updated_at: now,
          completed_at: null,
        };
        await repo.insertCart(tx, { ...cart, now });
        const items = [...merged.values()].map((line, position) => ({
          id: newId(),
          store_id: ctx.storeId,
          cart_id: cart.id,
          product_id: line.productId,
          variant_id: line.variantId ?? null,
          quantity: line.quantity,
          created_at: new Date(now.getTime() + position),
        }));
        await repo.insertItems(tx, items);
        return viewCart(deps, tx, cart, { items, facts });
      });
    },

    /** GET /carts/{id}: the cart priced now; a session's customer is linked to it. */
    async get(ctx: RequestContext, cartId: string, customerId?: string): Promise<PricedCartView> {
      const cart = await repo.findCart(db, ctx.storeId, cartId);
      if (!cart) throw notFound('cart');
      if (!customerId || cart.customer_id === customerId || cart.status !== 'open')
        return viewCart(deps, db, cart);
      return changeCart(ctx, cartId, customerId, async () => undefined);
    },

    /** The customer's most recently changed open cart (GET /api/customer/cart), or 404. */
    async latestOf(ctx: RequestContext, customerId: string): Promise<PricedCartView> {
      const cart = await repo.latestOpenCartOf(db, ctx.storeId, customerId);
      if (!cart) throw notFound('cart');
      return viewCart(deps, db, cart);
    },

    /** POST /carts/{id}/items: the same product and variant merge into one line. */
    addItem(ctx: RequestContext, cartId: string, line: LineInput, customerId?: string) {
      return changeCart(
        ctx,
        cartId,
        customerId,
        async (_tx, cart, { items, facts }) => {
          const variantId = line.variantId ?? null;
          const same = items.find((i) => i.product_id === line.productId && i.variant_id === variantId);
          const quantity = (same?.quantity ?? 0) + line.quantity;
          checkLine(facts, { ...line, quantity });
          if (same)
            return {
              items: items.map((i) => (i.id === same.id ? { ...i, quantity } : i)),
              line: { setQuantity: { id: same.id, quantity } },
            };
          if (items.length >= MAX_LINES) throw refuse('productId', `a cart holds at most ${MAX_LINES} lines`);
          const row = {
            id: newId(),
            store_id: ctx.storeId,
            cart_id: cart.id,
            product_id: line.productId,
            variant_id: variantId,
            quantity,
            created_at: new Date(),
          };
          return { items: [...items, row], line: { insert: row } };
        },
        [line.productId],
      );
    },

    /** PATCH /carts/{id}/items/{itemId}: a new quantity; 0 removes the line. */
    setItemQuantity(
      ctx: RequestContext,
      cartId: string,
      itemId: string,
      quantity: number,
      customerId?: string,
    ) {
      return changeCart(ctx, cartId, customerId, async (_tx, _cart, { items, facts }) => {
        const item = items.find((i) => i.id === itemId);
        if (!item) throw notFound('cart item');
        if (quantity === 0)
          return { items: items.filter((i) => i.id !== item.id), line: { delete: { id: item.id } } };
        checkLine(facts, { productId: item.product_id, variantId: item.variant_id, quantity });
        return {
          items: items.map((i) => (i.id === item.id ? { ...i, quantity } : i)),
          line: { setQuantity: { id: item.id, quantity } },
        };
      });
    },

    /** DELETE /carts/{id}/items/{itemId}. */
    removeItem(ctx: RequestContext, cartId: string, itemId: string, customerId?: string) {
      return changeCart(ctx, cartId, customerId, async (_tx, _cart, { items }) => {
        const item = items.find((i) => i.id === itemId);
        if (!item) throw notFound('cart item');
        return { items: items.filter((i) => i.id !== item.id), line: { delete: { id: item.id } } };
      });
    },

    /**
     * PATCH /carts/{id}: e-mail, address, coupon. A coupon is priced against the cart now and
     * refused with the discounts module's reason (400) when it does not apply; null removes it.
     */
    update(ctx: RequestContext, cartId: string, input: CartUpdate, customerId?: string) {
      return changeCart(ctx, cartId, customerId, async (tx, cart, contents) => {
        const changes: CartChanges = {};
        if (input.email !== undefined) changes.email = input.email;
        if (input.shippingAddress !== undefined)
          changes.shipping_address = input.shippingAddress ? withStoredCountry(input.shippingAddress) : null;
        if (input.shippingRateId !== undefined) changes.shipping_rate_id = input.shippingRateId;
        const code = input.couponCode === undefined ? undefined : input.couponCode?.trim() || null;
        const given = { code, shippingAddress: Boolean(input.shippingAddress), rateId: input.shippingRateId };
        await checkCartUpdate(deps, tx, { ...cart, ...changes }, contents, { ...given, customerId });
        if (code !== undefined) changes.coupon_code = code;
        return { changes };
      });
    },

    /**
     * POST /carts/{id}/complete, in one transaction: the cart's row is locked first (so the same
     * cart completed twice at once places one order), then checkout's phase (a) places the order
     * with the cart's lines, e-mail, address and coupon as the cart shows them, and the cart is
     * closed with the order's id. After commit, checkout's phase (b) collects the payment. A closed
     * cart answers its order again (`created: false`).
     */
    async complete(
      ctx: RequestContext,
      cartId: string,
      payment: Pick<CheckoutInput, 'paymentMethod' | 'cardToken'>,
      customerId?: string,
    ) {
      const outcome = await inTransaction(db, async (tx) => {
        const cart = await repo.lockCart(tx, ctx.storeId, cartId);
        if (!cart) throw notFound('cart');
        if (cart.order_id) return { replay: cart.order_id };
        if (!cart.email) throw refuse('email', 'the cart needs an e-mail address before it is completed');
        // Only a stored coupon needs the cart priced here (below): otherwise its lines and stock facts.
        const contents = await loadContents(deps, tx, cart, [], {
          images: false,
          pricing: Boolean(cart.coupon_code),
        });
        const lines = availableLines(contents);
        if (lines.length === 0) throw refuse('items', 'the cart is empty');
        // The order is priced once, by placing it. Only a stored coupon needs the cart priced
        // first: one that stopped applying is dropped, as GET shows the cart, instead of refused.
        const couponCode = cart.coupon_code ? (await viewCart(deps, tx, cart, contents)).couponCode : null;
        const address = cart.shipping_address;
        const placed = await deps.checkout.place(
          tx,
          ctx,
          {
            email: cart.email,
            firstName: address?.firstName ?? null,
            lastName: address?.lastName ?? null,
            items: lines.map(({ item }) => ({
              productId: item.product_id,
              variantId: item.variant_id,
              quantity: item.quantity,
            })),
            shippingAddress: address,
            shippingRateId: cart.shipping_rate_id,
            couponCode,
            paymentMethod: payment.paymentMethod,
            cardToken: payment.cardToken,
          },
          customerId ?? cart.customer_id ?? undefined,
        );
        await repo.closeCart(tx, ctx.storeId, cartId, placed.order.id, new Date());
        return { placed };
      });
      if (outcome.placed) {
        const placed = outcome.placed;
        try {
          return { ...(await deps.checkout.collect(ctx, placed)), created: true };
        } catch (error) {
          // The provider could not be reached: checkout cancelled the order and released its stock
          // (503), so the cart opens again for the shopper to retry instead of naming a dead order.
          if (error instanceof AppError && error.statusCode === 503)
            await repo.reopenCart(db, ctx.storeId, cartId, placed.order.id, new Date());
          throw error;
        }
      }
      return { ...(await deps.checkout.placed(ctx, outcome.replay)), created: false };
    },
  };
}

export type CartsService = ReturnType<typeof createCartsService>;

/** Deletes carts unchanged for 30 days (their lines with them), in bounded statements. */
export async function pruneExpiredCarts(db: Db, options: { batchSize: number; signal?: AbortSignal }) {
  const before = new Date(Date.now() - repo.CART_LIFETIME_MS);
  return { carts: await deleteInBatches((limit) => repo.deleteExpiredCarts(db, before, limit), options) };
}

/** The worker's periodic task that deletes expired carts: every `everyMs` (default hourly) and at start. */
export function cartExpiryTask(
  db: Db,
  logger: Logger,
  options: { everyMs?: number; batchSize?: number } = {},
): PeriodicTaskOptions {
  return {
    name: 'expired_carts_prune',
    everyMs: options.everyMs ?? 3600_000,
    async run(signal) {
      const { carts } = await pruneExpiredCarts(db, { batchSize: options.batchSize ?? 1000, signal });
      if (carts.deleted > 0)
        logger.info({ task: 'expired_carts_prune', carts: carts.deleted }, 'expired carts deleted');
    },
  };
}
