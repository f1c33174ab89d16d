import { type FormEvent, useState } from 'react';
import { ApiError, api } from '../../api/client';
import type { InventoryAdjustment, InventoryLevel } from '../../api/types';
import {
  Badge,
  Button,
  Card,
  Empty,
  ErrorBanner,
  Loading,
  Notice,
  SelectField,
  TextField,
} from '../../components/ui';
import { useResource } from '../../components/useResource';
import { humanise } from '../../lib/format';

const shortTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, {
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
  });

/** Stock levels, an adjustment form (product or one variant) and the history of every change. */
export function InventoryPanel({ productId }: { productId: string }) {
  const level = useResource(
    (signal) =>
      api.get<{ data: InventoryLevel }>(`/api/v1/inventory/${productId}`, { type: 'product' }, signal),
    [productId],
  );
  const history = useResource(
    (signal) =>
      api.get<{ data: InventoryAdjustment[] }>(
        `/api/v1/inventory/${productId}/adjustments`,
        { limit: 50 },
        signal,
      ),
    [productId],
  );
  const [target, setTarget] = useState('');
  const [adjustment, setAdjustment] = useState('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();

  const data = level.data?.data;
  const variants = data?.variants ?? [];
  const chosen = target || (variants[0]?.id ?? '');
  const variantTitle = (id: string | null) => variants.find((v) => v.id === id)?.title;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const delta = Number(adjustment);
    if (!Number.isInteger(delta) || delta === 0) {
      setError(new ApiError(400, 'invalid_request', 'Enter a whole number other than 0, such as 10 or -3.'));
      return;
    }
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    try {
      const isVariant = variants.length > 0;
      const res = await api.patch<{ data: { previous: number; inventory: number } }>(
        `/api/v1/inventory/${isVariant ? chosen : productId}`,
        {
          type: isVariant ? 'variant' : 'product',
          adjustment: delta,
          ...(reason.trim() ? { reason: reason.trim() } : {}),
        },
      );
      setNotice(`Stock changed from ${res.data.previous} to ${res.data.inventory}.`);
      setAdjustment('');
      setReason('');
      level.reload();
      history.reload();
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title="Inventory">
      {level.loading && !data ? <Loading /> : null}
      <ErrorBanner error={level.error} title="Could not load the stock level" />
      {data ? (
        <div className="stack">
          <p>
            <span className="big-number" data-testid="stock-level">
              {data.inventory}
            </span>{' '}
            in stock <Badge value={data.stock_status} />{' '}
            <span className="hint">low at {data.low_stock_threshold} or fewer</span>
          </p>
          {!data.track_inventory ? (
            <Notice tone="info">Stock is not tracked for this product: it never runs out.</Notice>
          ) : null}
          {variants.length ? (
            <ul className="plain-list">
              {variants.map((v) => (
                <li key={v.id}>
                  {v.title}: <strong>{v.inventory}</strong> <Badge value={v.stock_status} />
                </li>
              ))}
            </ul>
          ) : null}
          <form className="stack" onSubmit={submit} aria-label="Adjust stock">
            <ErrorBanner error={error} title="Could not adjust the stock" />
            {notice ? <Notice>{notice}</Notice> : null}
            <div className="row">
              {variants.length ? (
                <SelectField
                  label="Variant"
                  value={chosen}
                  onChange={(e) => setTarget(e.target.value)}
                  options={variants.map((v) => ({ value: v.id, label: `${v.title} (${v.inventory})` }))}
                />
              ) : null}
              <TextField
                label="Adjustment"
                inputMode="numeric"
                placeholder="+10 or -2"
                required
                value={adjustment}
                onChange={(e) => setAdjustment(e.target.value.replace(/^\+/, ''))}
                error={error instanceof ApiError ? error.fieldError('adjustment') : undefined}
              />
              <TextField
                label="Reason"
                placeholder="Restock, damaged, count…"
                value={reason}
                onChange={(e) => setReason(e.target.value)}
              />
            </div>
            <div className="form-actions">
              <Button type="submit" busy={busy}>
                Adjust stock
              </Button>
            </div>
          </form>
        </div>
      ) : null}
      <h3>History</h3>
      <ErrorBanner error={history.error} title="Could not load the history" />
      {history.data && history.data.data.length === 0 ? <Empty title="No stock changes yet" /> : null}
      {history.data && history.data.data.length > 0 ? (
        <div className="table-wrap">
          <table className="responsive compact" data-testid="inventory-history">
            <thead>
              <tr>
                <th>When</th>
                {variants.length ? <th>Variant</th> : null}
                <th className="num">Change</th>
                <th className="num">Stock</th>
                <th>Reason</th>
              </tr>
            </thead>
            <tbody>
              {history.data.data.map((a) => (
                <tr key={a.id}>
                  <td data-label="When">
                    <time dateTime={a.created_at}>{shortTime(a.created_at)}</time>
                  </td>
                  {variants.length ? <td data-label="Variant">{variantTitle(a.variant_id) ?? '—'}</td> : null}
                  <td data-label="Change" className={`num ${a.adjustment > 0 ? 'text-good' : 'text-bad'}`}>
                    {a.adjustment > 0 ? `+${a.adjustment}` : a.adjustment}
                  </td>
                  <td data-label="Stock" className="num">
                    {a.previous} → {a.inventory}
                  </td>
                  <td data-label="Reason">
                    {a.reason ?? '—'}
                    <div className="hint">{humanise(a.source)}</div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Card>
  );
}
