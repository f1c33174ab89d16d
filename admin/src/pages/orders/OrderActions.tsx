import { useState } from 'react';
import { ApiError, api } from '../../api/client';
import type { Order } from '../../api/types';
import { ModalForm } from '../../components/dialogs';
import { Checkbox, ErrorBanner, TextAreaField, TextField } from '../../components/ui';
import { currencyDecimals, formatMoney, minorToDecimal, numberToMinor } from '../../lib/money';

interface ActionProps {
  order: Order;
  open: boolean;
  onClose: () => void;
  onDone: (order: Order, message: string) => void;
}

function useSubmit(onDone: ActionProps['onDone']) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (call: () => Promise<{ data: Order }>, message: string) => {
    setBusy(true);
    setError(undefined);
    try {
      const res = await call();
      onDone(res.data, message);
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };
  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldError(field) : undefined);
  return { busy, error, run, fieldError, reset: () => setError(undefined) };
}

export function MarkPaidModal({ order, open, onClose, onDone }: ActionProps) {
  const decimals = currencyDecimals(order.currency);
  const [amount, setAmount] = useState(minorToDecimal(numberToMinor(order.balance_due, decimals), decimals));
  const [method, setMethod] = useState(order.payment_method ?? 'manual');
  const submit = useSubmit(onDone);
  return (
    <ModalForm
      open={open}
      title={`Mark order #${order.order_number} as paid`}
      submitLabel="Mark as paid"
      busy={submit.busy}
      onClose={() => {
        submit.reset();
        onClose();
      }}
      onSubmit={() =>
        void submit.run(
          () =>
            api.post(`/api/v1/orders/${order.id}/mark-paid`, {
              amount: amount.trim(),
              ...(method.trim() ? { payment_method: method.trim() } : {}),
            }),
          'The payment was recorded.',
        )
      }
    >
      <p>
        Balance due: <strong>{formatMoney(order.balance_due, order.currency)}</strong>. Record a payment you
        collected outside Emporium (cash, bank transfer…). Less than the balance makes the order partially
        paid.
      </p>
      <ErrorBanner error={submit.error} title="Could not record the payment" />
      <TextField
        label={`Amount (${order.currency})`}
        inputMode="decimal"
        required
        value={amount}
        onChange={(e) => setAmount(e.target.value)}
        error={submit.fieldError('amount')}
      />
      <TextField
        label="Payment method"
        value={method}
        onChange={(e) => setMethod(e.target.value)}
        hint="For example manual, cash, bank transfer"
        error={submit.fieldError('payment_method')}
      />
    </ModalForm>
  );
}

export function FulfilModal({ order, open, onClose, onDone }: ActionProps) {
  const [carrier, setCarrier] = useState('');
  const [tracking, setTracking] = useState('');
  const [url, setUrl] = useState('');
  const submit = useSubmit(onDone);
  const text = (v: string) => (v.trim() ? v.trim() : null);
  return (
    <ModalForm
      open={open}
      title={`Fulfil order #${order.order_number}`}
      submitLabel="Fulfil order"
      busy={submit.busy}
      onClose={() => {
        submit.reset();
        onClose();
      }}
      onSubmit={() =>
        void submit.run(
          () =>
            api.post(`/api/v1/orders/${order.id}/fulfill`, {
              carrier: text(carrier),
              tracking_number: text(tracking),
              tracking_url: text(url),
            }),
          'The order was fulfilled.',
        )
      }
    >
      <p>All items ship together; the customer is notified with the tracking details.</p>
      <ErrorBanner error={submit.error} title="Could not fulfil the order" />
      <TextField
        label="Carrier"
        value={carrier}
        onChange={(e) => setCarrier(e.target.value)}
        placeholder="UPS"
        error={submit.fieldError('carrier')}
      />
      <TextField
        label="Tracking number"
        value={tracking}
        onChange={(e) => setTracking(e.target.value)}
        error={submit.fieldError('tracking_number')}
      />
      <TextField
        label="Tracking URL"
        type="url"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        placeholder="https://"
        error={submit.fieldError('tracking_url')}
      />
    </ModalForm>
  );
}

export function CancelModal({ order, open, onClose, onDone }: ActionProps) {
  const [reason, setReason] = useState('');
  const [restock, setRestock] = useState(true);
  const submit = useSubmit(onDone);
  return (
    <ModalForm
      open={open}
      title={`Cancel order #${order.order_number}?`}
      submitLabel="Cancel order"
      danger
      busy={submit.busy}
      onClose={() => {
        submit.reset();
        onClose();
      }}
      onSubmit={() =>
        void submit.run(
          () => api.post(`/api/v1/orders/${order.id}/cancel`, { reason: reason.trim() || null, restock }),
          'The order was cancelled.',
        )
      }
    >
      <p>
        This cannot be undone.
        {order.amount_paid > 0
          ? ` ${formatMoney(order.amount_paid, order.currency)} was paid: the order will show a refund due.`
          : ''}
      </p>
      <ErrorBanner error={submit.error} title="Could not cancel the order" />
      <TextAreaField
        label="Reason"
        rows={2}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        error={submit.fieldError('reason')}
      />
      <Checkbox
        label="Put the items back in stock"
        checked={restock}
        onChange={(e) => setRestock(e.target.checked)}
      />
    </ModalForm>
  );
}
