import { Fragment } from 'react';
import type { Order } from '../../api/types';
import { taxLabel } from '../../lib/format';
import { currencyDecimals, formatMoney, formatSignedMinor, numberToMinor } from '../../lib/money';
import { rowTotalsOf } from './edit-preview';
import type { EditPreviewState } from './useEditPreview';

/** The amounts the preview shows: the server's preview of the edit, or the order as it is. */
export interface ShownTotals {
  subtotal: number;
  discount: number;
  shipping: number;
  tax: number;
  taxLines: { name: string; rate: string; amount: number }[];
  taxesIncluded: boolean;
  total: number;
  difference: number;
  amountPaid: number;
  balanceDue: number;
  /** Each row's total by row key; a row the answer does not cover yet has none. */
  rowTotals: Map<string, number>;
}

/** The latest preview's amounts once the form differs from the order (they may lag behind the form). */
export function shownOf(
  order: Order,
  changed: boolean,
  preview: Pick<EditPreviewState, 'result' | 'resultRows'>,
): ShownTotals {
  const { result, resultRows } = preview;
  const after = changed && result?.order && resultRows ? result.order : undefined;
  const o = after ?? order;
  return {
    subtotal: o.subtotal,
    discount: o.discount_amount,
    shipping: o.shipping_amount,
    tax: o.tax_amount,
    taxLines: o.tax_lines,
    taxesIncluded: o.taxes_included,
    total: o.total,
    difference: after && result ? result.price_difference : 0,
    amountPaid: o.amount_paid,
    balanceDue: o.balance_due,
    rowTotals:
      after && result && resultRows
        ? rowTotalsOf(order, resultRows, result)
        : new Map(order.line_items.map((l) => [l.id, l.total])),
  };
}

/**
 * The preview's totals: the order's current ones until something changes, then the server's answer
 * for the form, dimmed with "Updating…" while a newer answer is awaited. The tax is shown per tax
 * line, as the edit recomputes it.
 */
export function EditPreviewTotals({
  order,
  shown,
  changed,
  fresh,
  updating,
  problems,
  refusal,
}: {
  order: Order;
  shown: ShownTotals;
  changed: boolean;
  /** The totals are the server's for the form as it is now. */
  fresh: boolean;
  updating: boolean;
  /** What keeps the form from being previewed (fix the fields first). */
  problems: string[];
  /** Why the server refuses this edit, where no field of the form shows it. */
  refusal: string[];
}) {
  const money = (amount: number) => formatMoney(amount, order.currency);
  const current = fresh || !changed;
  const difference = numberToMinor(shown.difference, currencyDecimals(order.currency));
  const method = order.shipping_method?.name;
  return (
    <section
      className="preview"
      aria-live="polite"
      aria-busy={updating}
      aria-label="Preview of the new totals"
      data-testid="edit-preview"
    >
      <div className="preview-head">
        <h3>Preview</h3>
        {updating ? (
          <span className="hint" data-testid="preview-updating">
            Updating…
          </span>
        ) : null}
      </div>
      <dl className={`totals${current ? '' : ' pending'}`}>
        <dt>Subtotal</dt>
        <dd>
          {shown.subtotal !== order.subtotal ? <s>{money(order.subtotal)}</s> : null} {money(shown.subtotal)}
        </dd>
        <dt>Discount (unchanged)</dt>
        <dd>−{money(shown.discount)}</dd>
        <dt>Shipping ({method ? `${method}, ` : ''}unchanged)</dt>
        <dd>{money(shown.shipping)}</dd>
        {shown.taxLines.length ? (
          shown.taxLines.map((line) => (
            <Fragment key={`${line.name}:${line.rate}`}>
              <dt>{taxLabel(line.name, line.rate, shown.taxesIncluded)}</dt>
              <dd data-testid="preview-tax-line">{money(line.amount)}</dd>
            </Fragment>
          ))
        ) : (
          <>
            <dt>{shown.taxesIncluded ? 'incl. tax' : 'Tax'}</dt>
            <dd>{money(shown.tax)}</dd>
          </>
        )}
        <dt>New total</dt>
        <dd className="strong" data-testid="preview-total">
          {money(shown.total)}
        </dd>
        <dt>Price difference</dt>
        <dd
          className={`strong ${difference > 0 ? 'text-warn' : difference < 0 ? 'text-good' : ''}`}
          data-testid="preview-difference"
        >
          {formatSignedMinor(difference, order.currency)}
        </dd>
      </dl>
      {fresh && shown.balanceDue > 0 && shown.amountPaid > 0 ? (
        <p className="hint">
          The customer would owe {money(shown.balanceDue)}: the order becomes partially paid.
        </p>
      ) : null}
      {fresh && shown.balanceDue < 0 ? (
        <p className="hint">{money(-shown.balanceDue)} would be due back to the customer (refund due).</p>
      ) : null}
      {problems.length ? (
        <ul className="field-error" data-testid="preview-problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      {refusal.map((reason) => (
        <p key={reason} className="field-error" data-testid="preview-refusal">
          <strong>This edit cannot be saved:</strong> {reason}
        </p>
      ))}
      {!changed ? <p className="hint">Change a quantity, remove a line or add a product.</p> : null}
    </section>
  );
}
