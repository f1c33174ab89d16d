import { useMemo, useState } from 'react';
import { ApiError, api, type ListResult, versionedRequest } from '../../api/client';
import type { EditItemsResult, Order, Product } from '../../api/types';
import { ModalForm } from '../../components/dialogs';
import { StaleNotice } from '../../components/StaleNotice';
import { Button, ErrorBanner, errorLink, InlineError } from '../../components/ui';
import { formatMoney } from '../../lib/money';
import { EditPreviewTotals, type ShownTotals, shownOf } from './EditPreviewTotals';
import { type EditLine, editFormOf, type FieldProblem, linesOf, rowFieldOf, rowKeyOf } from './edit-preview';
import { useEditPreview } from './useEditPreview';

/** Finds a product (and variant) to add to the order. */
function AddProduct({ onAdd }: { onAdd: (line: EditLine) => void }) {
  const [q, setQ] = useState('');
  const [results, setResults] = useState<Product[]>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const search = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const res = await api.get<ListResult<Product>>('/api/v1/products', { q: q.trim(), limit: 10 });
      setResults(res.data);
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };
  const add = (product: Product, variant?: Product['variants'][number]) =>
    onAdd({
      kind: 'new',
      key: `${product.id}:${variant?.id ?? ''}:${Date.now()}`,
      productId: product.id,
      variantId: variant?.id ?? null,
      name: product.name,
      variantTitle: variant?.title ?? null,
      price: variant?.price ?? product.price,
      quantity: '1',
    });
  return (
    <div className="add-product stack">
      <div className="search">
        <label className="visually-hidden" htmlFor="add-product-search">
          Find a product to add
        </label>
        <input
          id="add-product-search"
          type="search"
          placeholder="Find a product to add (name or SKU)"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          onKeyDown={(e) => {
            // Enter searches here instead of submitting the edit.
            if (e.key === 'Enter') {
              e.preventDefault();
              void search();
            }
          }}
        />
        <Button onClick={() => void search()} busy={busy}>
          Find
        </Button>
      </div>
      <ErrorBanner error={error} title="Could not search products" />
      {results && results.length === 0 ? <p className="hint">No product matches.</p> : null}
      {results && results.length > 0 ? (
        <ul className="pick-list">
          {results.flatMap((product) =>
            product.variants.length === 0
              ? [
                  <li key={product.id}>
                    <span>
                      {product.name} <span className="hint">{product.price}</span>
                    </span>
                    <Button onClick={() => add(product)} aria-label={`Add ${product.name}`}>
                      Add
                    </Button>
                  </li>,
                ]
              : product.variants.map((variant) => (
                  <li key={variant.id}>
                    <span>
                      {product.name} · {variant.title} <span className="hint">{variant.price}</span>
                    </span>
                    <Button
                      onClick={() => add(product, variant)}
                      aria-label={`Add ${product.name} ${variant.title}`}
                    >
                      Add
                    </Button>
                  </li>
                )),
          )}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * Quantities, removals and new lines. The new totals are the server's preview of the very edit
 * (`dry_run`, retaxed at the order's recorded rates), asked as the merchant stops typing; Save
 * sends the same edit for real.
 */
export function EditItemsModal({
  order,
  etag,
  open,
  onClose,
  onDone,
  onReload,
}: {
  order: Order;
  /** The version of `order` the edit is prepared on: sent as If-Match. */
  etag: string | undefined;
  open: boolean;
  onClose: () => void;
  onDone: (result: EditItemsResult) => void;
  /** Closes the form and reads the order again (after a refusal as stale). */
  onReload: () => void;
}) {
  const [lines, setLines] = useState<EditLine[]>(() => linesOf(order));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [stale, setStale] = useState(false);
  const form = useMemo(() => editFormOf(order, lines), [order, lines]);
  const preview = useEditPreview(order, etag, form, busy);

  // The server's refusal of the form as it is now: per field where it names a row, else whole.
  const refusal = !preview.updating && preview.errorOf === preview.current ? preview.error : undefined;
  const refusedAsStale = refusal instanceof ApiError && refusal.status === 412;
  const serverProblems: FieldProblem[] = [];
  const unplaced: string[] = [];
  if (refusal instanceof ApiError && !refusedAsStale) {
    for (const detail of refusal.details) {
      const place = rowFieldOf(detail.field, form.rows);
      if (place) serverProblems.push({ ...place, message: detail.message });
      else
        unplaced.push(
          detail.field && detail.field !== 'body' ? `${detail.field}: ${detail.message}` : detail.message,
        );
    }
    if (refusal.details.length === 0) unplaced.push(refusal.message);
  }
  const problems = [...form.problems, ...serverProblems];
  const problemOf = (row: string, field: FieldProblem['field']) =>
    problems.find((p) => p.row === row && p.field === field)?.message;

  const fresh = form.ready && preview.resultOf === preview.current && !preview.updating;
  const shown: ShownTotals = shownOf(order, form.changed, preview);

  const update = (index: number, change: Partial<EditLine>) =>
    setLines((current) =>
      current.map((line, i) => (i === index ? ({ ...line, ...change } as EditLine) : line)),
    );

  const save = async () => {
    if (!form.ready) return;
    setBusy(true);
    setError(undefined);
    setStale(false);
    try {
      // Quantities and amounts are those of the version shown: if the order changed since (another
      // person's edit, a payment), nothing is saved (412) and the form says so. No merge: the lines
      // and the preview's totals are one whole.
      const res = await versionedRequest<{ data: EditItemsResult }>(
        'POST',
        `/api/v1/orders/${order.id}/edit-items`,
        form.body,
        { ifMatch: etag },
      );
      onDone(res.body.data);
    } catch (reason) {
      if (reason instanceof ApiError && reason.status === 412) setStale(true);
      else setError(reason);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ModalForm
      open={open}
      wide
      title={`Edit items of order #${order.order_number}`}
      submitLabel="Save changes"
      busy={busy}
      onClose={onClose}
      onSubmit={() => void save()}
    >
      {stale || refusedAsStale ? <StaleNotice what="order" fields={[]} onReload={onReload} /> : null}
      <ErrorBanner error={error} title="Could not save the changes" />
      <div className="table-wrap">
        <table className="edit-lines">
          <thead>
            <tr>
              <th>Item</th>
              <th className="num">Price</th>
              <th className="num">Quantity</th>
              <th className="num">Total</th>
              <th>
                <span className="visually-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {lines.map((line, index) => {
              const label = `${line.name}${line.variantTitle ? ` · ${line.variantTitle}` : ''}`;
              const row = rowKeyOf(line);
              const id = `edit-${index}`;
              const removed = line.kind === 'existing' && line.remove;
              const total = removed ? 0 : shown.rowTotals.get(row);
              return (
                <tr key={row} className={removed ? 'removed' : ''}>
                  <td>
                    {label}
                    {line.kind === 'new' ? <span className="badge badge-info">new</span> : null}
                    <InlineError id={`${id}-item`} message={problemOf(row, 'item')} />
                  </td>
                  <td className="num">
                    {line.kind === 'existing' ? (
                      formatMoney(line.price, order.currency)
                    ) : (
                      <>
                        <input
                          className="input-narrow"
                          inputMode="decimal"
                          aria-label={`Price of ${label}`}
                          value={line.price}
                          onChange={(e) => update(index, { price: e.target.value })}
                          {...errorLink(`${id}-price`, problemOf(row, 'price'))}
                        />
                        <InlineError id={`${id}-price`} message={problemOf(row, 'price')} />
                      </>
                    )}
                  </td>
                  <td className="num">
                    <input
                      className="input-narrow"
                      type="number"
                      min={1}
                      step={1}
                      aria-label={`Quantity of ${label}`}
                      disabled={removed}
                      value={line.quantity}
                      onChange={(e) => update(index, { quantity: e.target.value })}
                      {...errorLink(`${id}-quantity`, problemOf(row, 'quantity'))}
                    />
                    <InlineError id={`${id}-quantity`} message={problemOf(row, 'quantity')} />
                  </td>
                  <td className={`num${fresh || !form.changed ? '' : ' pending'}`}>
                    {total === undefined ? '…' : formatMoney(total, order.currency)}
                  </td>
                  <td>
                    {line.kind === 'existing' ? (
                      <Button
                        variant="link"
                        onClick={() => update(index, { remove: !line.remove })}
                        aria-label={`${line.remove ? 'Keep' : 'Remove'} ${label}`}
                      >
                        {line.remove ? 'Keep' : 'Remove'}
                      </Button>
                    ) : (
                      <Button
                        variant="link"
                        onClick={() => setLines((current) => current.filter((_, i) => i !== index))}
                        aria-label={`Remove ${label}`}
                      >
                        Remove
                      </Button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <AddProduct onAdd={(line) => setLines((current) => [...current, line])} />
      <EditPreviewTotals
        order={order}
        shown={shown}
        changed={form.changed}
        fresh={fresh}
        updating={preview.updating}
        problems={[
          ...(form.formProblem ? [form.formProblem] : []),
          ...(problems.length ? ['Correct the fields marked above to see the new totals.'] : []),
        ]}
        refusal={unplaced}
      />
    </ModalForm>
  );
}
