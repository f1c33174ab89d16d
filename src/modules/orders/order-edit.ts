import type { Db, Executor, Tx } from '../../platform/db/database.js';
import { inRolledBackTransaction, inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { conflict, type ErrorDetail, invalidRequest } from '../../platform/http/errors.js';
import { type IfMatch, requireMatch } from '../../platform/http/etag.js';
import { newId } from '../../platform/ids.js';
import type { OrderableProduct, ProductsService } from '../catalog/index.js';
import type { InventoryService, StockChange } from '../inventory/index.js';
import { retaxOrder } from './order-amounts.js';
import { amountOf, diff, recordOrderUpdated } from './order-events.js';
import { actorOf } from './order-history.js';
import { recordHistory } from './order-history.repository.js';
import { ensureAmountsInRange, lineSku } from './order-pricing.js';
import { isEditable } from './order-state.js';
import * as repo from './orders.repository.js';
import { paymentStatusOf, refundStatusOf, subtotalOf, totalOf } from './totals.js';

export interface EditItemsInput {
  update_quantity?: { item_id: string; new_quantity: number }[];
  /** `price` in minor units. */
  add?: {
    product_id: string;
    variant_id?: string | null;
    name: string;
    variant_title?: string | null;
    quantity: number;
    price: number;
  }[];
  remove?: string[];
}

export interface EditItemsResult {
  order: repo.OrderRow;
  oldTotal: number;
  lines: repo.LineItemRow[];
}

/** A dry run's result: the order as the edit would leave it, whole (nothing of it was saved). */
export interface EditPreview extends EditItemsResult {
  fulfillments: repo.FulfillmentRow[];
}

function fail(details: ErrorDetail[]): never {
  const first = details[0];
  throw invalidRequest(first ? `${first.field}: ${first.message}` : 'invalid edit', details);
}

/**
 * POST /orders/{id}/edit-items in one transaction: line items change, product and variant stock
 * moves by the exact deltas (short stock is 409 and nothing changes), subtotal and total are
 * recomputed with the discount and shipping frozen and the lines retaxed at the order's recorded
 * rate (§12), and the payment status follows the new balance. `preview` (`dry_run`) runs the very
 * same edit and rolls it back.
 */
export function createOrderEditor(deps: {
  db: Db;
  products: ProductsService;
  inventory: InventoryService;
  lockOrder(tx: Executor, storeId: string, id: string): Promise<repo.OrderRow>;
}) {
  async function validate(tx: Executor, storeId: string, lines: repo.LineItemRow[], input: EditItemsInput) {
    const updates = input.update_quantity ?? [];
    const adds = input.add ?? [];
    const removes = input.remove ?? [];
    if (updates.length + adds.length + removes.length === 0)
      fail([{ field: 'body', message: 'an edit needs update_quantity, add or remove' }]);
    const byId = new Map(lines.map((l) => [l.id, l]));
    const touched = new Set<string>();
    const details: ErrorDetail[] = [];
    const claim = (id: string, field: string) => {
      if (!byId.has(id)) details.push({ field, message: 'not a line item of this order' });
      else if (touched.has(id)) details.push({ field, message: 'line item named twice' });
      touched.add(id);
    };
    for (const [i, u] of updates.entries()) claim(u.item_id, `update_quantity.${i}.item_id`);
    for (const [i, id] of removes.entries()) claim(id, `remove.${i}`);
    const catalogue = await deps.products.lookupForOrder(
      tx,
      storeId,
      adds.map((a) => a.product_id),
    );
    adds.forEach((a, i) => {
      const product = catalogue.get(a.product_id);
      if (!product) details.push({ field: `add.${i}.product_id`, message: 'unknown product' });
      else if (a.variant_id && !product.variants.has(a.variant_id))
        details.push({ field: `add.${i}.variant_id`, message: 'not a variant of this product' });
      else if (!a.variant_id && product.variants.size > 0)
        details.push({ field: `add.${i}.variant_id`, message: 'this product has variants: choose one' });
    });
    if (details.length) fail(details);
    if (removes.length === lines.length && adds.length === 0)
      fail([{ field: 'remove', message: 'an order keeps at least one line item; cancel it instead' }]);
    return { byId, catalogue };
  }

  async function applyEdit(
    tx: Tx,
    ctx: RequestContext,
    id: string,
    input: EditItemsInput,
    ifMatch: IfMatch | undefined,
  ): Promise<EditItemsResult> {
    const { storeId } = ctx;
    const order = await deps.lockOrder(tx, storeId, id);
    // The edit was prepared on that version of the order (its lines, quantities and amounts).
    requireMatch(ifMatch, order);
    if (!isEditable(order.status)) throw conflict(`a ${order.status} order cannot be edited`);
    const before = await repo.lineItems(tx, storeId, order.id);
    const { byId, catalogue } = await validate(tx, storeId, before, input);

    // Stock of lines whose product was deleted since is not tracked any more: only the line moves.
    const live = await deps.products.lookupForOrder(
      tx,
      storeId,
      before.flatMap((l) => (l.product_id ? [l.product_id] : [])),
    );
    const stockOf = (line: { product_id: string | null; variant_id: string | null }, delta: number) => {
      const product = line.product_id ? live.get(line.product_id) : undefined;
      if (!product || (line.variant_id && !product.variants.has(line.variant_id))) return [];
      return [{ productId: product.id, variantId: line.variant_id, delta, source: 'edit' as const }];
    };
    const changes: StockChange[] = [];
    for (const u of input.update_quantity ?? []) {
      const line = byId.get(u.item_id) as repo.LineItemRow;
      changes.push(...stockOf(line, line.quantity - u.new_quantity));
    }
    for (const removed of input.remove ?? []) {
      const line = byId.get(removed) as repo.LineItemRow;
      changes.push(...stockOf(line, line.quantity));
    }
    const position = before.reduce((max, l) => Math.max(max, l.position), -1) + 1;
    const added = (input.add ?? []).map((a, i) => {
      // validate() refused unknown products and variants.
      const product = catalogue.get(a.product_id) as OrderableProduct;
      return {
        id: newId(),
        store_id: storeId,
        order_id: order.id,
        product_id: a.product_id,
        variant_id: a.variant_id ?? null,
        name: a.name,
        variant_title: a.variant_title ?? null,
        sku: lineSku(product, a.variant_id ? product.variants.get(a.variant_id) : null),
        quantity: a.quantity,
        price: a.price,
        position: position + i,
        tax_amount: 0,
      };
    });
    for (const a of added)
      changes.push({
        productId: a.product_id,
        variantId: a.variant_id,
        delta: -a.quantity,
        source: 'edit',
      });
    // Lock order (docs/decisions.md): the stock moves before the order's own rows are written
    // (their analytics trigger takes the last lock of the order).
    await deps.inventory.applyChanges(tx, storeId, changes);
    for (const u of input.update_quantity ?? [])
      await repo.updateLineQuantity(tx, storeId, u.item_id, u.new_quantity);
    await repo.deleteLineItems(tx, storeId, input.remove ?? []);
    await repo.insertLineItems(tx, added);

    let after = await repo.lineItems(tx, storeId, order.id);
    const subtotal = subtotalOf(after);
    // The tax follows the lines at the order's recorded rate (§12); a line whose product is gone
    // stays taxable as it was charged.
    const taxableOf = (line: repo.LineItemRow) => {
      const product = line.product_id
        ? (live.get(line.product_id) ?? catalogue.get(line.product_id))
        : undefined;
      return product ? product.taxable : line.tax_amount > 0;
    };
    const retaxed = retaxOrder(
      order,
      after.map((l) => ({ price: l.price, quantity: l.quantity, taxable: taxableOf(l) })),
    );
    if (retaxed) {
      after = after.map((l, i) => ({ ...l, tax_amount: retaxed.lineTaxes[i] ?? 0 }));
      await repo.setLineTaxes(
        tx,
        storeId,
        after.map((l) => ({ id: l.id, tax: l.tax_amount })),
      );
    }
    const tax = retaxed?.tax ?? order.tax_amount;
    const total = order.taxes_included
      ? Math.max(0, subtotal - order.discount_amount + order.shipping_amount)
      : totalOf({ subtotal, discount: order.discount_amount, shipping: order.shipping_amount, tax });
    ensureAmountsInRange({ subtotal, total }, order.currency, input.add?.length ? 'add' : 'update_quantity');
    const updated = await repo.updateOrder(tx, storeId, order.id, {
      subtotal,
      total,
      ...(retaxed ? { tax_amount: tax, tax_lines: JSON.stringify(retaxed.taxLines) } : {}),
      payment_status:
        refundStatusOf(order.amount_paid, order.amount_refunded) ?? paymentStatusOf(total, order.amount_paid),
    });
    const money = (minor: number) => amountOf(order, minor);
    const summary = (lines: repo.LineItemRow[]) =>
      lines.map((l) => ({ id: l.id, name: l.name, quantity: l.quantity, price: money(l.price) }));
    const edited = diff(
      {
        lineItems: summary(before),
        subtotal: money(order.subtotal),
        taxAmount: money(order.tax_amount),
        total: money(order.total),
        paymentStatus: order.payment_status,
      },
      {
        lineItems: summary(after),
        subtotal: money(subtotal),
        taxAmount: money(tax),
        total: money(total),
        paymentStatus: updated.payment_status,
      },
    );
    await recordOrderUpdated(tx, updated, edited, ctx.source);
    if (Object.keys(edited).length)
      await recordHistory(tx, updated, actorOf(ctx), 'items_edited', { changes: edited });
    return { order: updated, oldTotal: order.total, lines: after };
  }

  return {
    editItems: (ctx: RequestContext, id: string, input: EditItemsInput, ifMatch?: IfMatch) =>
      inTransaction(deps.db, (tx) => applyEdit(tx, ctx, id, input, ifMatch)),

    /**
     * The edit's outcome without the edit (Shopify's calculated order edit, Stripe's preview): the
     * same code, validation and errors in a transaction that is rolled back, so the merchant sees
     * the retaxed totals before saving, and no row, stock level, event, history entry or ETag moves.
     */
    previewEdit: (ctx: RequestContext, id: string, input: EditItemsInput, ifMatch?: IfMatch) =>
      inRolledBackTransaction(deps.db, async (tx): Promise<EditPreview> => {
        const result = await applyEdit(tx, ctx, id, input, ifMatch);
        return { ...result, fulfillments: await repo.fulfillments(tx, ctx.storeId, result.order.id) };
      }),
  };
}
