import type { EditItemsBody, EditItemsResult, Order } from '../../api/types';
import { currencyDecimals, minorToDecimal, parseMinor } from '../../lib/money';

/**
 * The Edit items form, without any arithmetic of amounts: what the merchant typed is checked for
 * form (a whole quantity, a price) and turned into the edit-items request; the new totals, retaxed
 * at the order's recorded rates, are the server's own (`dry_run: true`), never computed here.
 */

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

/** Which input of a row a message belongs to (`item`: the row itself, beside its name). */
export type RowField = 'quantity' | 'price' | 'item';

export interface FieldProblem {
  /** The row's key (rowKeyOf). */
  row: string;
  field: RowField;
  message: string;
}

type EditBody = Omit<EditItemsBody, 'dry_run'>;

export interface EditForm {
  /** Only what changed; meaningful when `ready`. */
  body: EditBody;
  /** The row behind each entry of the body's lists, to put the server's field errors back on it. */
  rows: { update_quantity: string[]; add: string[]; remove: string[] };
  /** What is wrong with what was typed, per row and input (nothing is asked of the server then). */
  problems: FieldProblem[];
  /** A problem of the whole edit. */
  formProblem: string | undefined;
  changed: boolean;
  /** Changed and well formed: the server can preview it and save it. */
  ready: boolean;
}

export const rowKeyOf = (line: EditLine) => (line.kind === 'existing' ? line.itemId : line.key);

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

/** The form's rows checked and turned into the edit-items request (only what changed). */
export function editFormOf(order: Order, lines: EditLine[]): EditForm {
  const decimals = currencyDecimals(order.currency);
  const body: Required<EditBody> = { update_quantity: [], add: [], remove: [] };
  const rows: EditForm['rows'] = { update_quantity: [], add: [], remove: [] };
  const problems: FieldProblem[] = [];
  let changed = false;
  for (const line of lines) {
    const row = rowKeyOf(line);
    if (line.kind === 'existing') {
      if (line.remove) {
        changed = true;
        body.remove.push(line.itemId);
        rows.remove.push(row);
        continue;
      }
      const quantity = quantityOf(line.quantity);
      if (quantity === undefined) {
        problems.push({
          row,
          field: 'quantity',
          message: 'A whole number of at least 1 (remove the line instead)',
        });
        continue;
      }
      const original = order.line_items.find((i) => i.id === line.itemId);
      if (original && original.quantity !== quantity) {
        changed = true;
        body.update_quantity.push({ item_id: line.itemId, new_quantity: quantity });
        rows.update_quantity.push(row);
      }
    } else {
      changed = true;
      const quantity = quantityOf(line.quantity);
      const price = parseMinor(line.price, decimals);
      if (quantity === undefined)
        problems.push({ row, field: 'quantity', message: 'A whole number of at least 1' });
      if (price === undefined)
        problems.push({
          row,
          field: 'price',
          message: `An amount such as ${minorToDecimal(1999, decimals)}`,
        });
      if (quantity === undefined || price === undefined) continue;
      body.add.push({
        product_id: line.productId,
        ...(line.variantId ? { variant_id: line.variantId } : {}),
        name: line.name,
        ...(line.variantTitle ? { variant_title: line.variantTitle } : {}),
        quantity,
        price: line.price.trim(),
      });
      rows.add.push(row);
    }
  }
  const formProblem = lines.every((l) => l.kind === 'existing' && l.remove)
    ? 'An order needs at least one item.'
    : undefined;
  const result: EditBody = {};
  if (body.update_quantity.length) result.update_quantity = body.update_quantity;
  if (body.add.length) result.add = body.add;
  if (body.remove.length) result.remove = body.remove;
  return {
    body: result,
    rows,
    problems,
    formProblem,
    changed,
    ready: changed && problems.length === 0 && !formProblem,
  };
}

const BODY_FIELD = /^(update_quantity|add|remove)\.(\d+)(?:\.(\w+))?$/;

/**
 * The row and input a field of the API's error names (`add.1.price`, `update_quantity.0.new_quantity`,
 * `remove.2`), or undefined for a field of the whole edit (`add` for amounts out of range, `body`).
 */
export function rowFieldOf(field: string, rows: EditForm['rows']): Omit<FieldProblem, 'message'> | undefined {
  const match = BODY_FIELD.exec(field.replace(/^\/?body[./]?/, '').replace(/\//g, '.'));
  if (!match) return undefined;
  const [, list, index, name] = match as unknown as [string, keyof EditForm['rows'], string, string?];
  const row = rows[list][Number(index)];
  if (row === undefined) return undefined;
  const input: RowField =
    name === 'new_quantity' || name === 'quantity' ? 'quantity' : name === 'price' ? 'price' : 'item';
  return { row, field: input };
}

/**
 * Each row's total in the server's preview, by row key: existing lines by their id, new lines in the
 * order they were sent (the server appends them after the order's lines), removed lines absent.
 */
export function rowTotalsOf(
  order: Order,
  rows: EditForm['rows'],
  preview: Pick<EditItemsResult, 'line_items'>,
): Map<string, number> {
  const existing = new Set(order.line_items.map((i) => i.id));
  const totals = new Map<string, number>();
  const added = preview.line_items.filter((l) => !existing.has(l.id));
  for (const line of preview.line_items) if (existing.has(line.id)) totals.set(line.id, line.total);
  rows.add.forEach((row, i) => {
    const line = added[i];
    if (line) totals.set(row, line.total);
  });
  return totals;
}
