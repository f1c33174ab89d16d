import { useState } from 'react';
import { ApiError, api } from '../../api/client';
import type { Order, Refund } from '../../api/types';
import { ModalForm } from '../../components/dialogs';
import { Badge, Card, ErrorBanner, TextAreaField, TextField } from '../../components/ui';
import { formatDateTime } from '../../lib/format';
import { currencyDecimals, formatMinor, formatMoney, minorToDecimal, numberToMinor } from '../../lib/money';

/**
 * Refunds on the order page (contract §9): what can still be refunded, the Refund form with its
 * restock choices per line, and the list of the order's refunds.
 */

/** Minor units still refundable: paid, minus refunds that succeeded or are pending at the provider. */
export function refundableMinor(order: Order, refunds: readonly Refund[]): number {
  const decimals = currencyDecimals(order.currency);
  const committed = refunds
    .filter((r) => r.status !== 'failed')
    .reduce((sum, r) => sum + numberToMinor(r.amount, decimals), 0);
  return Math.max(0, numberToMinor(order.amount_paid, decimals) - committed);
}

/** Units of each line already returned to stock (or about to be) by the order's refunds. */
function restockedByLine(refunds: readonly Refund[]): Map<string, number> {
  const units = new Map<string, number>();
  for (const refund of refunds) {
    if (refund.status === 'failed') continue;
    for (const r of refund.restocked)
      units.set(r.line_item_id, (units.get(r.line_item_id) ?? 0) + r.quantity);
  }
  return units;
}

export function RefundModal({
  order,
  refunds,
  open,
  onClose,
  onDone,
}: {
  order: Order;
  refunds: readonly Refund[];
  open: boolean;
  onClose: () => void;
  onDone: (refund: Refund) => void;
}) {
  const decimals = currencyDecimals(order.currency);
  const refundable = refundableMinor(order, refunds);
  const restocked = restockedByLine(refunds);
  const canRestock = order.status !== 'cancelled';
  const [amount, setAmount] = useState(minorToDecimal(refundable, decimals));
  const [reason, setReason] = useState('');
  const [restock, setRestock] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldError(field) : undefined);

  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const lines = Object.entries(restock)
        .map(([line_item_id, quantity]) => ({ line_item_id, quantity: Number(quantity) }))
        .filter((l) => Number.isInteger(l.quantity) && l.quantity > 0);
      const res = await api.post<{ data: Refund }>(`/api/v1/orders/${order.id}/refunds`, {
        amount: amount.trim(),
        reason: reason.trim() || null,
        ...(lines.length ? { restock: lines } : {}),
      });
      onDone(res.data);
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ModalForm
      open={open}
      title={`Refund order #${order.order_number}`}
      submitLabel="Refund"
      busy={busy}
      wide
      onClose={() => {
        setError(undefined);
        onClose();
      }}
      onSubmit={() => void submit()}
    >
      <p data-testid="refundable">
        Refundable: <strong>{formatMinor(refundable, order.currency)}</strong> of{' '}
        {formatMoney(order.amount_paid, order.currency)} paid.
        {order.payment_method === 'stripe'
          ? ' The money goes back to the card through Stripe.'
          : ' Record money you returned outside Emporium (cash, bank transfer…).'}
      </p>
      <ErrorBanner error={error} title="Could not refund" />
      <TextField
        label={`Amount (${order.currency})`}
        inputMode="decimal"
        required
        value={amount}
        onChange={(e) => setAmount(e.target.value)}
        error={fieldError('amount')}
      />
      <TextAreaField
        label="Reason"
        rows={2}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        hint="Shown to your team and sent with the order.refunded webhook"
        error={fieldError('reason')}
      />
      <fieldset className="stack-sm">
        <legend>Put items back in stock</legend>
        {canRestock ? null : (
          <p className="hint">The stock of a cancelled order was settled when it was cancelled.</p>
        )}
        {order.line_items.map((line) => {
          const left = line.quantity - (restocked.get(line.id) ?? 0);
          return (
            <TextField
              key={line.id}
              label={`${line.name}${line.variant_title ? ` · ${line.variant_title}` : ''}`}
              type="number"
              inputMode="numeric"
              min={0}
              max={left}
              step={1}
              disabled={!canRestock || left === 0}
              value={restock[line.id] ?? '0'}
              onChange={(e) => setRestock({ ...restock, [line.id]: e.target.value })}
              hint={`${left} of ${line.quantity} can go back to stock`}
            />
          );
        })}
      </fieldset>
    </ModalForm>
  );
}

export function RefundsCard({ order, refunds }: { order: Order; refunds: readonly Refund[] }) {
  const money = (v: number) => formatMoney(v, order.currency);
  const names = new Map(order.line_items.map((l) => [l.id, l.name]));
  return (
    <Card title="Refunds">
      {refunds.length === 0 ? <p className="hint">No refunds.</p> : null}
      <ul className="refund-list stack-sm" data-testid="refunds">
        {refunds.map((r) => (
          <li key={r.id} data-testid="refund">
            <p>
              <span className="strong">{money(r.amount)}</span> <Badge value={r.status} />{' '}
              <span className="hint">
                {formatDateTime(r.created_at)} · {r.provider}
              </span>
            </p>
            {r.reason ? <p>{r.reason}</p> : null}
            {r.restocked.length ? (
              <p className="hint">
                Restocked:{' '}
                {r.restocked.map((x) => `${x.quantity} × ${names.get(x.line_item_id) ?? 'item'}`).join(', ')}
              </p>
            ) : null}
            {r.failure_reason ? <p className="text-bad">{r.failure_reason}</p> : null}
          </li>
        ))}
      </ul>
    </Card>
  );
}
