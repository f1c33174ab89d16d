import { type FormEvent, useState } from 'react';
import { api, type ListResult } from '../../api/client';
import type { Product } from '../../api/types';
import { Allowed } from '../../components/access';
import { Badge, Button, Empty, ErrorBanner, Loading, PageHeader, Pagination } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { formatMoney } from '../../lib/money';
import { Link, navigate } from '../../lib/router';
import { useCurrency } from '../../session';

export function ProductsPage() {
  const currency = useCurrency();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const products = useResource(
    (signal) =>
      api.get<ListResult<Product>>('/api/v1/products', { q: query, status, page, limit: 25 }, signal),
    [query, status, page],
  );
  const search = (event: FormEvent) => {
    event.preventDefault();
    setPage(1);
    setQuery(q.trim());
  };
  const filtered = query || status;
  return (
    <div className="stack-lg">
      <PageHeader
        title="Products"
        actions={
          <Allowed need={{ scope: 'products:write' }}>
            <Button variant="primary" onClick={() => navigate('/products/new')}>
              New product
            </Button>
          </Allowed>
        }
      />
      <div className="toolbar">
        <search className="search-landmark">
          <form className="search" onSubmit={search}>
            <label className="visually-hidden" htmlFor="product-search">
              Search products
            </label>
            <input
              id="product-search"
              type="search"
              placeholder="Name or SKU"
              value={q}
              onChange={(e) => setQ(e.target.value)}
            />
            <Button type="submit">Search</Button>
          </form>
        </search>
        <label className="inline-field">
          <span>Status</span>
          <select
            value={status}
            onChange={(e) => {
              setPage(1);
              setStatus(e.target.value);
            }}
          >
            <option value="">All</option>
            <option value="active">Active</option>
            <option value="draft">Draft</option>
            <option value="archived">Archived</option>
          </select>
        </label>
      </div>
      <ErrorBanner error={products.error} title="Could not load products" />
      {products.loading && !products.data ? <Loading label="Loading products…" /> : null}
      {products.data && products.data.data.length === 0 ? (
        <Empty title={filtered ? 'No product matches' : 'No products yet'}>
          {filtered ? null : (
            <Allowed need={{ scope: 'products:write' }}>
              <Button variant="primary" onClick={() => navigate('/products/new')}>
                Add your first product
              </Button>
            </Allowed>
          )}
        </Empty>
      ) : null}
      {products.data && products.data.data.length > 0 ? (
        <div className={`table-wrap ${products.loading ? 'is-refreshing' : ''}`}>
          <table className="responsive">
            <thead>
              <tr>
                <th>
                  <span className="visually-hidden">Image</span>
                </th>
                <th>Product</th>
                <th>Status</th>
                <th>SKU</th>
                <th className="num">Stock</th>
                <th className="num">Price</th>
              </tr>
            </thead>
            <tbody>
              {products.data.data.map((p) => {
                const image = p.images.find((i) => i.is_primary) ?? p.images[0];
                return (
                  <tr key={p.id}>
                    <td className="thumb-cell">
                      {image ? (
                        <img className="thumb" src={image.url} alt="" loading="lazy" />
                      ) : (
                        <span className="thumb thumb-empty" />
                      )}
                    </td>
                    <td data-label="Product">
                      <Link to={`/products/${p.id}`} className="strong">
                        {p.name}
                      </Link>
                      {p.variants.length ? <div className="hint">{p.variants.length} variants</div> : null}
                    </td>
                    <td data-label="Status">
                      <Badge value={p.status} />
                    </td>
                    <td data-label="SKU">{p.sku ?? '—'}</td>
                    <td data-label="Stock" className="num">
                      {/* One element: the phone layout makes each child of a cell a grid item. */}
                      <span>
                        {p.track_inventory ? p.inventory : 'Not tracked'}
                        {/* Only what needs acting on is marked: at or below the threshold, or none left. */}
                        {p.stock_status === 'in_stock' ? null : (
                          <>
                            {' '}
                            <Badge value={p.stock_status} />
                          </>
                        )}
                      </span>
                    </td>
                    <td data-label="Price" className="num">
                      {formatMoney(p.price, currency)}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pagination meta={products.data?.meta.pagination} onPage={setPage} />
    </div>
  );
}
