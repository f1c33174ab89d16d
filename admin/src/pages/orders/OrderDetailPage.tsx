import { useState } from 'react';
import { ApiError, api, versionedRequest } from '../../api/client';
import type { Order, Refund } from '../../api/types';
import { Allowed } from '../../components/access';
import { Badge, Button, Card, ErrorBanner, Loading, Notice, PageHeader } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { customerName, formatDateTime } from '../../lib/format';
import { currencyDecimals, formatMoney, formatSignedMinor, numberToMinor } from '../../lib/money';
import { Link } from '../../lib/router';
import { EditItemsModal } from './EditItemsModal';
import { NotesCard } from './NotesCard';
import { CancelModal, FulfilModal, MarkPaidModal } from './OrderActions';
import { OrderEmails } from './OrderEmails';
import { OrderTotals } from './OrderTotals';
import { RefundModal, RefundsCard, refundableMinor } from './Refunds';
import { Timeline } from './Timeline';

type Action = 'pay' | 'fulfil' | 'cancel' | 'edit' | 'refund' | undefined;
export function OrderDetailPage({ id }: { id: string }) {
  // Read with its version (ETag), which the notes are saved against (If-Match).
  const order = useResource(
    (signal) => versionedRequest<{ data: Order }>('GET', `/api/v1/orders/${id}`, undefined, { signal }),
    [id],
  );
  const refunds = useResource(
    (signal) => api.get<{ data: Refund[] }>(`/api/v1/orders/${id}/refunds`, { limit: 100 }, signal),
    [id],
  );
  const [action, setAction] = useState<Action>();
  const [notice, setNotice] = useState<string>();

  if (order.loading && !order.data) return <Loading label="Loading the order…" />;
  if (order.error && !order.data) {
    const missing = order.error instanceof ApiError && order.error.status === 404;
    return (
      <div className="stack">
        <PageHeader title={missing ? 'Order not found' : 'Order'} />
        <ErrorBanner
          error={order.error}
          title={missing ? 'This order does not exist in your store' : 'Could not load the order'}
        />
        <Link to="/orders">Back to orders</Link>
      </div>
    );
  }
  const loaded = order.data;
  const o = loaded?.body.data;
  if (!loaded || !o) return null;
  const money = (v: number) => formatMoney(v, o.currency);
  const open = o.status !== 'cancelled' && o.status !== 'completed';
  const canPay = o.status !== 'cancelled' && o.balance_due > 0;
  const canFulfil = o.fulfillment_status === 'unfulfilled' && o.status === 'processing';
  const canEdit = o.fulfillment_status !== 'fulfilled' && o.status !== 'cancelled';
  const refundList = refunds.data?.data ?? [];
  const canRefund = refunds.data !== undefined && refundableMinor(o, refundList) > 0;
  const done = (next: Order, message: string) => {
    // An action's answer carries no ETag: the order is read again for its version at once. Until it
    // arrives (a moment) a save goes without If-Match, as before; the older tag would be refused.
    order.set({ body: { data: next }, etag: undefined });
    order.reload();
    setAction(undefined);
    setNotice(message);
  };

  return (
    <div className="stack-lg">
      <p className="breadcrumb">
        <Link to="/orders">Orders</Link> /
      </p>
      <PageHeader
        title={`Order #${o.order_number}`}
        actions={
          <Allowed need={{ scope: 'orders:write' }}>
            {canPay ? (
              <Button variant="primary" onClick={() => setAction('pay')}>
                Mark as paid
              </Button>
            ) : null}
            {canFulfil ? (
              <Button variant="primary" onClick={() => setAction('fulfil')}>
                Fulfil
              </Button>
            ) : null}
            {canEdit ? <Button onClick={() => setAction('edit')}>Edit items</Button> : null}
            {canRefund ? <Button onClick={() => setAction('refund')}>Refund</Button> : null}
            {open ? (
              <Button variant="danger" onClick={() => setAction('cancel')}>
                Cancel order
              </Button>
            ) : null}
          </Allowed>
        }
      >
        <div className="badges" data-testid="order-badges">
          <Badge value={o.status} />
          <Badge value={o.payment_status} />
          <Badge value={o.fulfillment_status} />
          <span className="hint">Placed {formatDateTime(o.created_at)}</span>
        </div>
      </PageHeader>
      {notice ? <Notice>{notice}</Notice> : null}
      {o.status === 'pending' && !canFulfil && o.fulfillment_status === 'unfulfilled' ? (
        <p className="hint">The order can be fulfilled once it is paid.</p>
      ) : null}

      <div className="grid-main">
        <div className="stack-lg">
          <Card title="Items">
            <div className="table-wrap">
              <table className="responsive">
                <thead>
                  <tr>
                    <th>Item</th>
                    <th>SKU</th>
                    <th className="num">Price</th>
                    <th className="num">Quantity</th>
                    <th className="num">Total</th>
                  </tr>
                </thead>
                <tbody>
                  {o.line_items.map((item) => (
                    <tr key={item.id}>
                      <td data-label="Item">
                        {item.product_id ? (
                          <Link to={`/products/${item.product_id}`}>{item.name}</Link>
                        ) : (
                          item.name
                        )}
                        {item.variant_title ? <span className="hint"> · {item.variant_title}</span> : null}
                      </td>
                      <td data-label="SKU">{item.sku ?? '—'}</td>
                      <td data-label="Price" className="num">
                        {money(item.price)}
                      </td>
                      <td data-label="Quantity" className="num">
                        {item.quantity}
                      </td>
                      <td data-label="Total" className="num">
                        {money(item.total)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <OrderTotals order={o} money={money} />
          </Card>
          <NotesCard
            key={o.updated_at}
            loaded={loaded}
            onSubmit={() => setNotice(undefined)}
            onSaved={(next) => {
              order.set(next);
              setNotice('The notes were saved.');
            }}
            onReload={(latest) => {
              order.set(latest);
              setNotice(undefined);
            }}
          />
          <Card title="History">
            <Timeline order={o} />
          </Card>
          <OrderEmails orderId={o.id} version={o.updated_at} />
        </div>
        <div className="stack-lg">
          <Card title="Customer">
            <p className="strong">
              {o.customer.id ? (
                <Link to={`/customers/${o.customer.id}`}>{customerName(o.customer)}</Link>
              ) : (
                customerName(o.customer)
              )}
            </p>
            <p>
              <a href={`mailto:${o.customer.email}`}>{o.customer.email}</a>
            </p>
            <h3>Shipping address</h3>
            {o.shipping_address ? (
              <address>
                {[o.shipping_address.first_name, o.shipping_address.last_name].filter(Boolean).join(' ')}
                {o.shipping_address.first_name || o.shipping_address.last_name ? <br /> : null}
                {o.shipping_address.line1}
                <br />
                {o.shipping_address.line2 ? (
                  <>
                    {o.shipping_address.line2}
                    <br />
                  </>
                ) : null}
                {o.shipping_address.postal_code} {o.shipping_address.city}
                {o.shipping_address.region ? `, ${o.shipping_address.region}` : ''}
                <br />
                {o.shipping_address.country}
              </address>
            ) : (
              <p className="hint">No shipping address</p>
            )}
          </Card>
          <Card title="Payment">
            <p>
              <Badge value={o.payment_status} />{' '}
              {o.payment_method ? <span className="hint">via {o.payment_method}</span> : null}
            </p>
            <p>
              {money(o.amount_paid)} paid of {money(o.total)}
              {o.paid_at ? <span className="hint"> · paid {formatDateTime(o.paid_at)}</span> : null}
            </p>
            {o.balance_due < 0 ? <p className="text-bad">Refund due: {money(-o.balance_due)}</p> : null}
          </Card>
          <RefundsCard order={o} refunds={refundList} />
          <Card title="Fulfilment">
            <p>
              <Badge value={o.fulfillment_status} />
            </p>
            {o.fulfillments.length === 0 ? <p className="hint">Not shipped yet.</p> : null}
            {o.fulfillments.map((f) => (
              <div key={f.id} className="fulfilment" data-testid="fulfilment">
                <p>
                  {f.carrier ?? 'Carrier not given'} · {formatDateTime(f.created_at)}
                </p>
                {f.tracking_number ? (
                  <p>
                    Tracking:{' '}
                    {f.tracking_url ? (
                      <a href={f.tracking_url} target="_blank" rel="noreferrer noopener">
                        {f.tracking_number}
                      </a>
                    ) : (
                      f.tracking_number
                    )}
                  </p>
                ) : null}
              </div>
            ))}
            {o.cancelled_at ? (
              <p className="text-bad">
                Cancelled {formatDateTime(o.cancelled_at)}
                {o.cancel_reason ? `: ${o.cancel_reason}` : ''}
              </p>
            ) : null}
          </Card>
        </div>
      </div>

      {action === 'pay' ? (
        <MarkPaidModal order={o} open onClose={() => setAction(undefined)} onDone={done} />
      ) : null}
      {action === 'fulfil' ? (
        <FulfilModal order={o} open onClose={() => setAction(undefined)} onDone={done} />
      ) : null}
      {action === 'cancel' ? (
        <CancelModal order={o} open onClose={() => setAction(undefined)} onDone={done} />
      ) : null}
      {action === 'refund' ? (
        <RefundModal
          order={o}
          refunds={refundList}
          open
          onClose={() => setAction(undefined)}
          onDone={(refund) => {
            setAction(undefined);
            setNotice(
              refund.status === 'succeeded'
                ? `Refunded ${money(refund.amount)}.`
                : refund.status === 'pending'
                  ? `The refund of ${money(refund.amount)} is pending at ${refund.provider}.`
                  : `The refund was refused: ${refund.failure_reason ?? 'no reason given'}.`,
            );
            order.reload();
            refunds.reload();
          }}
        />
      ) : null}
      {action === 'edit' ? (
        <EditItemsModal
          order={o}
          etag={loaded.etag}
          open
          onClose={() => setAction(undefined)}
          onReload={() => {
            setAction(undefined);
            setNotice(undefined);
            order.reload();
          }}
          onDone={(result) => {
            const decimals = currencyDecimals(o.currency);
            setAction(undefined);
            setNotice(
              `The items were saved. New total ${money(result.new_total)} (${formatSignedMinor(
                numberToMinor(result.price_difference, decimals),
                o.currency,
              )}).`,
            );
            order.reload();
          }}
        />
      ) : null}
    </div>
  );
}
