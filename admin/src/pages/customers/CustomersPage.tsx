import { type FormEvent, useState } from 'react';
import { api, type ListResult } from '../../api/client';
import type { Customer } from '../../api/types';
import { Button, Empty, ErrorBanner, Loading, PageHeader, Pagination } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { customerName, formatDate } from '../../lib/format';
import { formatMoney } from '../../lib/money';
import { Link } from '../../lib/router';
import { useCurrency } from '../../session';

export function CustomersPage() {
  const currency = useCurrency();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const customers = useResource(
    (signal) => api.get<ListResult<Customer>>('/api/v1/customers', { q: query, page, limit: 25 }, signal),
    [query, page],
  );
  const search = (event: FormEvent) => {
    event.preventDefault();
    setPage(1);
    setQuery(q.trim());
  };
  return (
    <div className="stack-lg">
      <PageHeader title="Customers" />
      <div className="toolbar">
        <search className="search-landmark">
          <form className="search" onSubmit={search}>
            <label className="visually-hidden" htmlFor="customer-search">
              Search customers
            </label>
            <input
              id="customer-search"
              type="search"
              placeholder="E-mail or name"
              value={q}
              onChange={(e) => setQ(e.target.value)}
            />
            <Button type="submit">Search</Button>
          </form>
        </search>
      </div>
      <ErrorBanner error={customers.error} title="Could not load customers" />
      {customers.loading && !customers.data ? <Loading label="Loading customers…" /> : null}
      {customers.data && customers.data.data.length === 0 ? (
        <Empty title={query ? 'No customer matches' : 'No customers yet'}>
          {query ? null : <p>Customers appear at their first order or sign-in.</p>}
        </Empty>
      ) : null}
      {customers.data && customers.data.data.length > 0 ? (
        <div className={`table-wrap ${customers.loading ? 'is-refreshing' : ''}`}>
          <table className="responsive">
            <thead>
              <tr>
                <th>Customer</th>
                <th>E-mail</th>
                <th className="num">Orders</th>
                <th className="num">Spent</th>
                <th>Since</th>
              </tr>
            </thead>
            <tbody>
              {customers.data.data.map((c) => (
                <tr key={c.id}>
                  <td data-label="Customer">
                    <Link to={`/customers/${c.id}`} className="strong">
                      {customerName(c)}
                    </Link>
                  </td>
                  <td data-label="E-mail">{c.email}</td>
                  <td data-label="Orders" className="num">
                    {c.orders_count}
                  </td>
                  <td data-label="Spent" className="num">
                    {formatMoney(c.total_spent, currency)}
                  </td>
                  <td data-label="Since">{formatDate(c.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pagination meta={customers.data?.meta.pagination} onPage={setPage} />
    </div>
  );
}
