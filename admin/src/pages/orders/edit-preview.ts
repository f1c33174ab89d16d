import type { EditItemsBody, Order } from '../../api/types';
import { currencyDecimals, minorToDecimal, numberToMinor, parseMinor } from '../../lib/money';

/** One row of the edit form: an existing line (quantity changed or removed) or a new one. */
export type EditLine =
  | {
      kind: 'existing';
      itemId: string;
      name: string;
      variantTitle: string | null;
      price: number;
      quantity: string;
      remove: boolean;
    }
  | {
      kind: 'new';
      key: string;
      productId: string;
      variantId: string | null;
      name: string;
      variantTitle: string | null;
      /** Decimal text as typed ("19.99"). */
      price: string;
      quantity: string;
    };

export interface EditPreview {
  valid: boolean;
  problems: string[];
  /** Minor units. */
  oldSubtotal: number;
  newSubtotal: number;
  discount: number;
  shipping: number;
  tax: number;
  oldTotal: number;
  newTotal: number;
  difference: number;
  /** What the customer would still owe (negative: to refund). */
  newBalance: number;
  changed: boolean;
  lineTotals: number[];
}

function quantityOf(text: string): number | undefined {
  if (!/^\d{1,6}$/.test(text.trim())) return undefined;
  const n = Number(text);
  return n >= 1 ? n : undefined;
}

export function linesOf(order: Order): EditLine[] {
  return order.line_items.map((item) => ({
    kind: 'existing',
    itemId: item.id,
    name: item.name,
    variantTitle: item.variant_title,
    price: item.price,
    quantity: String(item.quantity),
    remove: false,
  }));
}

/**
 * The new totals, computed here before anything is saved, with the server's arithmetic: integer
 * minor units, the discount, shipping and tax of the order frozen, total = max(0, subtotal −
 * discount + shipping + tax), difference = new total − old total.
 */
export function previewEdit(order: Order, lines: EditLine[]): EditPreview {
  const decimals = currencyDecimals(order.currency);
  const minor = (n: number) => numberToMinor(n, decimals);
  const problems: string[] = [];
  const lineTotals: number[] = [];
  let changed = false;
  let subtotal = 0;
  for (const line of lines) {
    if (line.kind === 'existing') {
      const original = order.line_items.find((i) => i.id === line.itemId);
      if (line.remove) {
        changed = true;
        lineTotals.push(0);
        continue;
      }
      const quantity = quantityOf(line.quantity);
      if (quantity === undefined) {
        problems.push(
          `${line.name}: the quantity must be a whole number of at least 1 (remove the line instead)`,
        );
        lineTotals.push(0);
        continue;
      }
      if (quantity !== original?.quantity) changed = true;
      const total = minor(line.price) * quantity;
      lineTotals.push(total);
      subtotal += total;
    } else {
      changed = true;
      const quantity = quantityOf(line.quantity);
      const price = parseMinor(line.price, decimals);
      if (quantity === undefined)
        problems.push(`${line.name}: the quantity must be a whole number of at least 1`);
      if (price === undefined)
        problems.push(`${line.name}: the price must be an amount such as ${minorToDecimal(1999, decimals)}`);
      const total = quantity !== undefined && price !== undefined ? price * quantity : 0;
      lineTotals.push(total);
      subtotal += total;
    }
  }
  if (lines.every((l) => l.kind === 'existing' && l.remove))
    problems.push('An order needs at least one item.');
  const discount = minor(order.discount_amount);
  const shipping = minor(order.shipping_amount);
  const tax = minor(order.tax_amount);
  const oldTotal = minor(order.total);
  const newTotal = Math.max(0, subtotal - discount + shipping + tax);
  return {
    valid: problems.length === 0 && changed,
    problems,
    oldSubtotal: minor(order.subtotal),
    newSubtotal: subtotal,
    discount,
    shipping,
    tax,
    oldTotal,
    newTotal,
    difference: newTotal - oldTotal,
    newBalance: newTotal - minor(order.amount_paid),
    changed,
    lineTotals,
  };
}

/** The edit-items request for the form's lines (only what changed). */
export function editBodyOf(order: Order, lines: EditLine[]): EditItemsBody {
  const body: Required<Omit<EditItemsBody, 'dry_run'>> = { update_quantity: [], add: [], remove: [] };
  for (const line of lines) {
    if (line.kind === 'existing') {
      if (line.remove) body.remove.push(line.itemId);
      else {
        const original = order.line_items.find((i) => i.id === line.itemId);
        const quantity = Number(line.quantity);
        if (original && original.quantity !== quantity)
          body.update_quantity.push({ item_id: line.itemId, new_quantity: quantity });
      }
    } else {
      body.add.push({
        product_id: line.productId,
        ...(line.variantId ? { variant_id: line.variantId } : {}),
        name: line.name,
        ...(line.variantTitle ? { variant_title: line.variantTitle } : {}),
        quantity: Number(line.quantity),
        price: line.price.trim(),
      });
    }
  }
  const result: EditItemsBody = {};
  if (body.update_quantity.length) result.update_quantity = body.update_quantity;
  if (body.add.length) result.add = body.add;
  if (body.remove.length) result.remove = body.remove;
  return result;
}
