import type { ChangeCounter } from '../../platform/change-counter.js';
import type { Db, Executor, Tx } from '../../platform/db/database.js';
import type { SqlText } from '../../platform/db/sql-text.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { type GatedWrites, WriteBatch, type Writer } from '../../platform/db/write-batch.js';
import type { RequestContext } from '../../platform/http/context.js';
import { insufficientStock, invalidRequest, notFound } from '../../platform/http/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import { recordEvent } from '../../platform/outbox.js';
import * as repo from './inventory.repository.js';
import type { AdjustmentSource } from './inventory.tables.js';
import { stockCrossings, stockStatus } from './stock-status.js';

export type InventoryType = 'product' | 'variant';

export interface StockChange {
  productId: string;
  variantId?: string | null;
  delta: number;
  reason?: string | null;
  source: AdjustmentSource;
  /**
   * false: record no low/out-of-stock event for this step. A caller making several changes in one
   * transaction then calls recordCrossings once, so events describe the net change, not a transient.
   */
  events?: boolean;
}

/**
 * A data-modifying statement of another module sent with the last stock move of `applyChanges`, in
 * the same statement (one round trip less while the row lock is held). It reads the CTE `moved` (the
 * product row just moved) so that it runs only when the stock did move, after the product's lock:
 * it must come next in the lock order (checkout: the order counter). Its RETURNING row is returned.
 */
export interface StockTail {
  /** The tail's statement (its CTE is named `tail`). */
  query: SqlText;
  /** Writes that run only when `tail` has a row (WriteBatch.gated('tail')), in the same statement. */
  after?: GatedWrites;
}

/** A product, or one of its variants, whose tracked stock went from 0 (or less) to more than 0. */
export interface Restocked {
  productId: string;
  /** null: the product's own stock (a product without variants). */
  variantId: string | null;
}

/**
 * Told of stock that came back, inside the transaction of the change (back-in-stock sign-ups end
 * and their e-mails are queued with it, or not at all). Called only when something came back: a
 * sale, which only takes stock, never reaches it.
 */
export type RestockPort = (tx: Tx, storeId: string, restocked: Restocked[]) => Promise<void>;

/** What inventory tells other modules of, injected (inventory imports none of them). */
export interface InventoryPorts {
  mailLowStock?: LowStockMailer;
  restocked?: RestockPort;
}

export interface StockChangeResult {
  /** The row of the `tail` sent with this change, if any. */
  tail?: unknown;
  productId: string;
  variantId: string | null;
  previous: number;
  inventory: number;
  /** The product's own level before this change (equals `previous` for a product-level change). */
  productPrevious: number;
  /** The product's level after this change. */
  product: repo.ProductLevel;
  /** Set when this change brought tracked stock back from 0 (or less). */
  restocked?: Restocked;
}

/** What came back with a change: the variant moved, or the product's own level. */
function restockOf(result: Omit<StockChangeResult, 'restocked'>): Restocked | undefined {
  if (!result.product.track_inventory || result.previous > 0 || result.inventory <= 0) return undefined;
  return { productId: result.productId, variantId: result.variantId };
}

/**
 * Queues the store's low_stock e-mail in the crossing's transaction or write batch (the
 * notifications module's queueNotification, injected: that module reads the catalogue and stock to
 * render it). `dedupeKey`: one message per crossing.
 */
export type LowStockMailer = (
  to: Writer,
  input: {
    storeId: string;
    kind: 'low_stock';
    refs: { product_id: string; variant_id: string | null; threshold: number; quantity: number };
    dedupeKey: string;
  },
) => Promise<unknown>;

/**
 * `changes` is bumped per store at every stock change (inside the caller's transaction, and again
 * after the merchant's own adjustments commit), so caches of shop pages drop that store's pages.
 */
export function createInventoryService(db: Db, changes?: ChangeCounter, ports: InventoryPorts = {}) {
  async function recordStockEvents(
    tx: Executor,
    storeId: string,
    level: repo.ProductLevel,
    previous: number,
  ) {
    if (!level.track_inventory) return;
    const crossings = stockCrossings(previous, level.inventory, level.threshold);
    if (crossings.length === 0) return;
    // The events and the store's e-mail in one statement.
    const writes = new WriteBatch(tx);
    for (const crossing of crossings) {
      // The seed's two fields, then what a receiver needs to act: names are not unique. A level
      // here is always the product's (its variants' sum), so variantId is null and sku the product's.
      const eventId = await recordEvent(writes, storeId, `product.${crossing}`, {
        productName: level.name,
        inventory: level.inventory,
        productId: level.product_id,
        variantId: null,
        sku: level.sku,
        threshold: level.threshold,
      });
      if (crossing === 'low_stock' && ports.mailLowStock)
        await ports.mailLowStock(writes, {
          storeId,
          kind: 'low_stock',
          refs: {
            product_id: level.product_id,
            variant_id: null,
            threshold: level.threshold,
            quantity: level.inventory,
          },
          // The crossing's event names it: a crossing is one event, and one e-mail.
          dedupeKey: `low_stock:${eventId}`,
        });
    }
    await writes.run();
  }

  /** Product-level consequences of a change: the new total (with its history row when `note`), events. */
  async function moveProduct(
    tx: Executor,
    storeId: string,
    productId: string,
    delta: number,
    events: boolean,
    note?: repo.AdjustmentNote,
    tail?: StockTail,
  ) {
    const level = await repo.addToProduct(tx, storeId, productId, delta, note, tail);
    if (!level) {
      const exists = await repo.productLevel(tx, storeId, productId);
      if (!exists) throw notFound('product');
      throw insufficientStock(`not enough stock of ${exists.name}: ${exists.inventory} left`);
    }
    if (events) await recordStockEvents(tx, storeId, level, level.inventory - delta);
    return level;
  }

  /** One stock change (see applyChange), without telling the restock port. */
  async function moveStock(
    tx: Tx,
    storeId: string,
    change: StockChange,
    tail?: StockTail,
  ): Promise<StockChangeResult> {
    if (!Number.isInteger(change.delta) || change.delta === 0)
      throw invalidRequest('adjustment must be a non-zero integer');
    changes?.bump(storeId);
    const note = { id: newId(), reason: change.reason ?? null, source: change.source };
    const events = change.events !== false;
    if (change.variantId) {
      await repo.lockProductOfVariant(tx, storeId, change.variantId);
      const variant = await repo.addToVariant(tx, storeId, change.variantId, change.delta, note);
      if (!variant) {
        const exists = await repo.findVariant(tx, storeId, change.variantId);
        if (!exists) throw notFound('variant');
        throw insufficientStock(`not enough stock of variant ${exists.title}: ${exists.inventory} left`);
      }
      const product = await moveProduct(
        tx,
        storeId,
        variant.product_id,
        change.delta,
        events,
        undefined,
        tail,
      );
      const result = {
        tail: product.tail,
        productId: variant.product_id,
        variantId: variant.variant_id,
        previous: variant.inventory - change.delta,
        inventory: variant.inventory,
        productPrevious: product.inventory - change.delta,
        product,
      };
      return { ...result, restocked: restockOf(result) };
    }
    const level = await moveProduct(tx, storeId, change.productId, change.delta, events, note, tail);
    const result = {
      tail: level.tail,
      productId: level.product_id,
      variantId: null,
      previous: level.inventory - change.delta,
      inventory: level.inventory,
      productPrevious: level.inventory - change.delta,
      product: level,
    };
    return { ...result, restocked: restockOf(result) };
  }

  /** Hands what came back to the restock port: one call per transaction step, none when nothing did. */
  async function announceRestocks(tx: Tx, storeId: string, restocked: (Restocked | undefined)[]) {
    const items = restocked.filter((item): item is Restocked => item !== undefined);
    if (items.length > 0 && ports.restocked) await ports.restocked(tx, storeId, items);
  }

  /**
   * Applies one stock change inside the caller's transaction. A variant change moves the variant and
   * its product's total by the same delta, so the product level is always the sum of its variants.
   * The history row is written by the statement that moves the stock.
   */
  async function applyChange(
    tx: Tx,
    storeId: string,
    change: StockChange,
    tail?: StockTail,
  ): Promise<StockChangeResult> {
    const result = await moveStock(tx, storeId, change, tail);
    await announceRestocks(tx, storeId, [result.restocked]);
    return result;
  }

  async function view(tx: Executor, storeId: string, id: string, type: InventoryType) {
    if (!isUuid(id)) throw notFound(type);
    let productId = id;
    let variant: Awaited<ReturnType<typeof repo.findVariant>>;
    if (type === 'variant') {
      variant = await repo.findVariant(tx, storeId, id);
      if (!variant) throw notFound('variant');
      productId = variant.product_id;
    }
    const product = await repo.productLevel(tx, storeId, productId);
    if (!product) throw notFound('product');
    const inventory = variant ? variant.inventory : product.inventory;
    const variants =
      type === 'product' && product.variant_count > 0
        ? await repo.variantLevels(tx, storeId, productId)
        : undefined;
    return {
      id,
      type,
      product_id: productId,
      variant_id: variant?.id ?? null,
      inventory,
      track_inventory: product.track_inventory,
      low_stock_threshold: product.threshold,
      stock_status: stockStatus(inventory, product.track_inventory, product.threshold),
      variant_count: product.variant_count,
      ...(variants
        ? {
            variants: variants.map((v) => ({
              id: v.id,
              title: v.title,
              sku: v.sku,
              inventory: v.inventory,
              stock_status: stockStatus(v.inventory, product.track_inventory, product.threshold),
            })),
          }
        : {}),
    };
  }

  /** Records the events of a product's net move from `previous` to its current level (see `events`). */
  async function recordCrossings(tx: Executor, storeId: string, productId: string, previous: number) {
    const level = await repo.productLevel(tx, storeId, productId);
    if (level) await recordStockEvents(tx, storeId, level, previous);
  }

  /**
   * Several stock changes as one net move (an order's lines, an edit, a restock): changes of the same
   * product or variant are summed, applied in one fixed lock order (product id, then variant id) so
   * concurrent orders cannot deadlock, and each product's low/out-of-stock events describe its net
   * change, once.
   */
  async function applyChanges(
    tx: Tx,
    storeId: string,
    changes: StockChange[],
    tail?: StockTail,
  ): Promise<unknown> {
    const net = new Map<string, StockChange>();
    for (const change of changes) {
      const key = `${change.productId}/${change.variantId ?? ''}`;
      const seen = net.get(key);
      net.set(key, seen ? { ...seen, delta: seen.delta + change.delta } : { ...change });
    }
    const ordered = [...net.entries()]
      .filter(([, change]) => change.delta !== 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    // Per product: its level before the first change and after the last (its row stays locked, so
    // the last level returned is the current one; no re-read needed for the events).
    const moves = new Map<string, { previous: number; level: repo.ProductLevel }>();
    let tailRow: unknown;
    const restocked: (Restocked | undefined)[] = [];
    for (const [index, [, change]] of ordered.entries()) {
      const last = index === ordered.length - 1;
      const result = await moveStock(tx, storeId, { ...change, events: false }, last ? tail : undefined);
      if (last) tailRow = result.tail;
      restocked.push(result.restocked);
      const seen = moves.get(result.productId);
      moves.set(result.productId, {
        previous: seen?.previous ?? result.productPrevious,
        level: result.product,
      });
    }
    for (const { previous, level } of moves.values()) await recordStockEvents(tx, storeId, level, previous);
    await announceRestocks(tx, storeId, restocked);
    return tailRow;
  }

  return {
    applyChange,
    applyChanges,
    recordCrossings,

    get: (ctx: RequestContext, id: string, type: InventoryType) => view(db, ctx.storeId, id, type),

    async adjust(
      ctx: RequestContext,
      id: string,
      input: { type: InventoryType; adjustment: number; reason?: string },
    ) {
      const adjusted = await inTransaction(db, async (tx) => {
        const before = await view(tx, ctx.storeId, id, input.type);
        if (input.type === 'product' && before.variant_count > 0) {
          throw invalidRequest(
            'this product has variants: adjust a variant (type=variant); the product level is their sum',
          );
        }
        const result = await applyChange(tx, ctx.storeId, {
          productId: before.product_id,
          variantId: before.variant_id,
          delta: input.adjustment,
          reason: input.reason,
          source: ctx.source === 'admin' ? 'admin' : 'api',
        });
        const after = await view(tx, ctx.storeId, id, input.type);
        return {
          id,
          type: input.type,
          previous: result.previous,
          adjustment: input.adjustment,
          inventory: result.inventory,
          stock_status: after.stock_status,
        };
      });
      changes?.bump(ctx.storeId);
      return adjusted;
    },

    async history(ctx: RequestContext, productId: string, limit = 50) {
      // An unknown id, or one of another store, is 404 like every other read, not an empty history.
      if (!isUuid(productId) || !(await repo.productLevel(db, ctx.storeId, productId)))
        throw notFound('product');
      return repo.listAdjustments(db, ctx.storeId, productId, limit);
    },
  };
}

export type InventoryService = ReturnType<typeof createInventoryService>;
