import { type FormEvent, useState } from 'react';
import { api, type ListResult } from '../../api/client';
import type { OrderSummary } from '../../api/types';
import { Badge, Button, Empty, ErrorBanner, Loading, PageHeader, Pagination } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { customerName, formatDateTime, humanise } from '../../lib/format';
import { formatMoney } from '../../lib/money';
import { Link, navigate, useLocation } from '../../lib/router';

const STATUSES = ['pending', 'processing', 'on_hold', 'completed', 'cancelled'];
const PAYMENT = ['unpaid', 'partially_paid', 'paid', 'refund_due'];
const FULFILMENT = ['unfulfilled', 'fulfilled'];

function FilterSelect({
  label,
  value,
  values,
  onChange,
}: {
  label: string;
  value: string;
  values: string[];
  onChange: (value: string) => void;
}) {
  return (
    <label className="inline-field">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">All</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {humanise(v)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Filters live in the address (so a filtered list can be bookmarked and Back returns to it). */
export function OrdersPage() {
  const { search } = useLocation();
  const filters = {
    status: search.get('status') ?? '',
    payment_status: search.get('payment_status') ?? '',
    fulfillment_status: search.get('fulfillment_status') ?? '',
    q: search.get('q') ?? '',
    page: Number(search.get('page') ?? '1') || 1,
  };
  const [q, setQ] = useState(filters.q);

  const setFilters = (next: Partial<typeof filters>) => {
    const merged = { ...filters, page: 1, ...next };
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(merged))
      if (v && !(k === 'page' && v === 1)) params.set(k, String(v));
    const text = params.toString();
    navigate(`/orders${text ? `?${text}` : ''}`, { replace: true });
  };

  const orders = useResource(
    (signal) =>
      api.get<ListResult<OrderSummary>>(
        '/api/v1/orders',
        {
          status: filters.status,
          payment_status: filters.payment_status,
          fulfillment_status: filters.fulfillment_status,
          q: filters.q,
          page: filters.page,
          limit: 25,
        },
        signal,
      ),
    [filters.status, filters.payment_status, filters.fulfillment_status, filters.q, filters.page],
  );

  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    setFilters({ q: q.trim() });
  };
  const filtered = filters.status || filters.payment_status || filters.fulfillment_status || filters.q;

  return (
    <div className="stack-lg">
      <PageHeader title="Orders" />
      <div className="toolbar">
        <search className="search-landmark">
          <form className="search" onSubmit={submitSearch}>
            <label className="visually-hidden" htmlFor="order-search">
              Search orders
            </label>
            <input
              id="order-search"
              type="search"
              placeholder="Order number or e-mail"
              value={q}
              onChange={(e) => setQ(e.target.value)}
            />
            <Button type="submit">Search</Button>
          </form>
        </search>
        <div className="filters">
          <FilterSelect
            label="Status"
            value={filters.status}
            values={STATUSES}
            onChange={(status) => setFilters({ status })}
          />
          <FilterSelect
            label="Payment"
            value={filters.payment_status}
            values={PAYMENT}
            onChange={(payment_status) => setFilters({ payment_status })}
          />
          <FilterSelect
            label="Fulfilment"
            value={filters.fulfillment_status}
            values={FULFILMENT}
            onChange={(fulfillment_status) => setFilters({ fulfillment_status })}
          />
          {filtered ? (
            <Button
              variant="link"
              onClick={() => {
                setQ('');
                setFilters({ status: '', payment_status: '', fulfillment_status: '', q: '' });
              }}
            >
              Clear filters
            </Button>
          ) : null}
        </div>
      </div>
      <ErrorBanner error={orders.error} title="Could not load orders" />
      {orders.loading && !orders.data ? <Loading label="Loading orders…" /> : null}
      {orders.data && orders.data.data.length === 0 ? (
        <Empty title={filtered ? 'No order matches these filters' : 'No orders yet'}>
          {filtered ? null : <p>Orders from your storefront, apps and the API appear here.</p>}
        </Empty>
      ) : null}
      {orders.data && orders.data.data.length > 0 ? (
        <div className={`table-wrap ${orders.loading ? 'is-refreshing' : ''}`}>
          <table className="responsive">
            <thead>
              <tr>
                <th>Order</th>
                <th>Date</th>
                <th>Customer</th>
                <th>Status</th>
                <th>Payment</th>
                <th>Fulfilment</th>
                <th className="num">Items</th>
                <th className="num">Total</th>
              </tr>
            </thead>
            <tbody>
              {orders.data.data.map((order) => (
                <tr key={order.id}>
                  <td data-label="Order">
                    <Link to={`/orders/${order.id}`} className="strong">
                      #{order.order_number}
                    </Link>
                  </td>
                  <td data-label="Date">{formatDateTime(order.created_at)}</td>
                  <td data-label="Customer">{customerName(order.customer)}</td>
                  <td data-label="Status">
                    <Badge value={order.status} />
                  </td>
                  <td data-label="Payment">
                    <Badge value={order.payment_status} />
                  </td>
                  <td data-label="Fulfilment">
                    <Badge value={order.fulfillment_status} />
                  </td>
                  <td data-label="Items" className="num">
                    {order.item_count}
                  </td>
                  <td data-label="Total" className="num">
                    {formatMoney(order.total, order.currency)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pagination meta={orders.data?.meta.pagination} onPage={(page) => setFilters({ ...filters, page })} />
    </div>
  );
}
