import { api, type ListResult } from '../../api/client';
import type { Customer, OrderSummary } from '../../api/types';
import { Badge, Card, Empty, ErrorBanner, Loading, PageHeader } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { customerName, formatDate, formatDateTime } from '../../lib/format';
import { formatMoney } from '../../lib/money';
import { Link } from '../../lib/router';
import { useCurrency } from '../../session';

export function CustomerDetailPage({ id }: { id: string }) {
  const currency = useCurrency();
  const customer = useResource(
    (signal) => api.get<{ data: Customer }>(`/api/v1/customers/${id}`, undefined, signal),
    [id],
  );
  const orders = useResource(
    (signal) => api.get<ListResult<OrderSummary>>('/api/v1/orders', { customer_id: id, limit: 20 }, signal),
    [id],
  );
  if (customer.loading && !customer.data) return <Loading label="Loading the customer…" />;
  const c = customer.data?.data;
  if (!c)
    return (
      <div className="stack">
        <PageHeader title="Customer" />
        <ErrorBanner error={customer.error} title="Could not load the customer" />
        <Link to="/customers">Back to customers</Link>
      </div>
    );
  return (
    <div className="stack-lg">
      <p className="breadcrumb">
        <Link to="/customers">Customers</Link> /
      </p>
      <PageHeader title={customerName(c)}>
        <p className="subtitle">Customer since {formatDate(c.created_at)}</p>
      </PageHeader>
      <div className="grid-main">
        <Card title="Orders">
          <ErrorBanner error={orders.error} title="Could not load the orders" />
          {orders.data && orders.data.data.length === 0 ? <Empty title="No orders yet" /> : null}
          {orders.data && orders.data.data.length > 0 ? (
            <div className="table-wrap">
              <table className="responsive">
                <thead>
                  <tr>
                    <th>Order</th>
                    <th>Date</th>
                    <th>Status</th>
                    <th className="num">Total</th>
                  </tr>
                </thead>
                <tbody>
                  {orders.data.data.map((o) => (
                    <tr key={o.id}>
                      <td data-label="Order">
                        <Link to={`/orders/${o.id}`}>#{o.order_number}</Link>
                      </td>
                      <td data-label="Date">{formatDateTime(o.created_at)}</td>
                      <td data-label="Status">
                        <Badge value={o.status} /> <Badge value={o.payment_status} />
                      </td>
                      <td data-label="Total" className="num">
                        {formatMoney(o.total, o.currency)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </Card>
        <div className="stack-lg">
          <Card title="Contact">
            <p>
              <a href={`mailto:${c.email}`}>{c.email}</a>
            </p>
            <p>{c.phone ?? <span className="hint">No phone</span>}</p>
            <dl className="totals">
              <dt>Orders</dt>
              <dd>{c.orders_count}</dd>
              <dt>Total spent</dt>
              <dd>{formatMoney(c.total_spent, currency)}</dd>
            </dl>
          </Card>
          <Card title="Addresses">
            {c.addresses.length === 0 ? <p className="hint">No saved address.</p> : null}
            {c.addresses.map((a) => (
              <address key={a.id} className="address">
                {a.is_default ? <Badge value="active" label="Default" /> : null}
                <div>{a.line1}</div>
                {a.line2 ? <div>{a.line2}</div> : null}
                <div>
                  {a.postal_code} {a.city}
                  {a.region ? `, ${a.region}` : ''}
                </div>
                <div>{a.country}</div>
              </address>
            ))}
          </Card>
        </div>
      </div>
    </div>
  );
}
