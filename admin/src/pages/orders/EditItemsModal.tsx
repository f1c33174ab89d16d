import { useMemo, useState } from 'react';
import { ApiError, api, type ListResult, versionedRequest } from '../../api/client';
import type { EditItemsResult, Order, Product } from '../../api/types';
import { ModalForm } from '../../components/dialogs';
import { StaleNotice } from '../../components/StaleNotice';
import { Button, ErrorBanner } from '../../components/ui';
import { formatMinor, formatMoney, formatSignedMinor } from '../../lib/money';
import { type EditLine, editBodyOf, linesOf, previewEdit } from './edit-preview';

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
 * Quantities, removals and new lines, with the new total and the price difference shown live
 * (computed here with the server's rule) before anything is saved.
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
  const preview = useMemo(() => previewEdit(order, lines), [order, lines]);
  const money = (minor: number) => formatMinor(minor, order.currency);

  const update = (index: number, change: Partial<EditLine>) =>
    setLines((current) =>
      current.map((line, i) => (i === index ? ({ ...line, ...change } as EditLine) : line)),
    );

  const save = async () => {
    if (!preview.valid) return;
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
        editBodyOf(order, lines),
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
      {stale ? <StaleNotice what="order" fields={[]} onReload={onReload} /> : null}
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
              return (
                <tr
                  key={line.kind === 'existing' ? line.itemId : line.key}
                  className={line.kind === 'existing' && line.remove ? 'removed' : ''}
                >
                  <td>
                    {label}
                    {line.kind === 'new' ? <span className="badge badge-info">new</span> : null}
                  </td>
                  <td className="num">
                    {line.kind === 'existing' ? (
                      formatMoney(line.price, order.currency)
                    ) : (
                      <input
                        className="input-narrow"
                        inputMode="decimal"
                        aria-label={`Price of ${label}`}
                        value={line.price}
                        onChange={(e) => update(index, { price: e.target.value })}
                      />
                    )}
                  </td>
                  <td className="num">
                    <input
                      className="input-narrow"
                      type="number"
                      min={1}
                      step={1}
                      aria-label={`Quantity of ${label}`}
                      disabled={line.kind === 'existing' && line.remove}
                      value={line.quantity}
                      onChange={(e) => update(index, { quantity: e.target.value })}
                    />
                  </td>
                  <td className="num">{money(preview.lineTotals[index] ?? 0)}</td>
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
      <section
        className="preview"
        aria-live="polite"
        aria-label="Preview of the new totals"
        data-testid="edit-preview"
      >
        <h3>Preview</h3>
        <dl className="totals">
          <dt>Subtotal</dt>
          <dd>
            {preview.newSubtotal !== preview.oldSubtotal ? <s>{money(preview.oldSubtotal)}</s> : null}{' '}
            {money(preview.newSubtotal)}
          </dd>
          <dt>Discount (unchanged)</dt>
          <dd>−{money(preview.discount)}</dd>
          <dt>Shipping (unchanged)</dt>
          <dd>{money(preview.shipping)}</dd>
          <dt>Tax (unchanged)</dt>
          <dd>{money(preview.tax)}</dd>
          <dt>New total</dt>
          <dd className="strong" data-testid="preview-total">
            {money(preview.newTotal)}
          </dd>
          <dt>Price difference</dt>
          <dd
            className={`strong ${preview.difference > 0 ? 'text-warn' : preview.difference < 0 ? 'text-good' : ''}`}
            data-testid="preview-difference"
          >
            {formatSignedMinor(preview.difference, order.currency)}
          </dd>
        </dl>
        {preview.changed && preview.newBalance > 0 && order.amount_paid > 0 ? (
          <p className="hint">
            The customer would owe {money(preview.newBalance)}: the order becomes partially paid.
          </p>
        ) : null}
        {preview.changed && preview.newBalance < 0 ? (
          <p className="hint">{money(-preview.newBalance)} would be due back to the customer (refund due).</p>
        ) : null}
        {preview.problems.length ? (
          <ul className="field-error">
            {preview.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        ) : null}
        {!preview.changed ? <p className="hint">Change a quantity, remove a line or add a product.</p> : null}
      </section>
    </ModalForm>
  );
}
