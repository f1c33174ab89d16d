import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { api } from '../../api/client';
import { Badge, Button, Empty, ErrorBanner, Loading, Notice, PageHeader } from '../../components/ui';
import { formatDate, formatDateTime } from '../../lib/format';
import { formatMinor } from '../../lib/money';
import { Link } from '../../lib/router';
import { useNotice } from '../OperatorApp';
import type { OperatorStore, StoreList } from '../types';

const PAGE_SIZE = 50;

/**
 * Every store of the platform, newest first, searched by slug, name or owner e-mail; further pages
 * by the API's cursor ("Load more" appends, so what was read stays in place).
 */
export function StoresPage() {
  const { notice } = useNotice();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [stores, setStores] = useState<OperatorStore[]>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    document.title = 'Stores · Emporium operators';
  }, []);

  const load = useCallback(
    async (after: string | null, signal?: AbortSignal) => {
      setLoading(true);
      setError(undefined);
      try {
        const page = await api.get<StoreList>(
          '/api/operator/stores',
          { q: query, limit: PAGE_SIZE, cursor: after },
          signal,
        );
        setStores((previous) => (after ? [...(previous ?? []), ...page.data] : page.data));
        setCursor(page.next_cursor);
      } catch (reason) {
        if (!signal?.aborted) setError(reason);
      } finally {
        if (!signal?.aborted) setLoading(false);
      }
    },
    [query],
  );

  useEffect(() => {
    const controller = new AbortController();
    void load(null, controller.signal);
    return () => controller.abort();
  }, [load]);

  const search = (event: FormEvent) => {
    event.preventDefault();
    setQuery(q.trim());
  };

  return (
    <div className="stack-lg">
      <PageHeader title="Stores" />
      <div aria-live="polite">{notice ? <Notice>{notice}</Notice> : null}</div>
      <div className="toolbar">
        <search className="search-landmark">
          <form className="search" onSubmit={search}>
            <label className="visually-hidden" htmlFor="store-search">
              Search stores
            </label>
            <input
              id="store-search"
              type="search"
              placeholder="Slug, name or owner e-mail"
              value={q}
              onChange={(e) => setQ(e.target.value)}
            />
            <Button type="submit">Search</Button>
          </form>
        </search>
      </div>
      <ErrorBanner error={error} title="Could not load the stores" />
      {loading && !stores ? <Loading label="Loading stores…" /> : null}
      {stores && stores.length === 0 ? (
        <Empty title={query ? 'No store matches' : 'No stores yet'}>
          {query ? <p>Nothing has the slug, name or owner e-mail “{query}”.</p> : null}
        </Empty>
      ) : null}
      {stores && stores.length > 0 ? (
        <div className={`table-wrap ${loading ? 'is-refreshing' : ''}`}>
          <table className="responsive operator-stores">
            <caption className="visually-hidden">
              Stores{query ? ` matching “${query}”` : ''}, newest first
            </caption>
            <thead>
              <tr>
                <th scope="col">Store</th>
                <th scope="col">Owner</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col" className="num">
                  Products
                </th>
                <th scope="col" className="num">
                  Orders 30 d
                </th>
                <th scope="col" className="num">
                  Revenue 30 d
                </th>
                <th scope="col">Last activity</th>
              </tr>
            </thead>
            <tbody>
              {stores.map((s) => (
                <tr key={s.id}>
                  <td data-label="Store">
                    <div>
                      <Link to={`/stores/${s.id}`} className="strong">
                        {s.name}
                      </Link>
                      <div className="hint">{s.slug}</div>
                    </div>
                  </td>
                  <td data-label="Owner" className="break-email">
                    {s.owner_email ?? '—'}
                  </td>
                  <td data-label="Status">
                    <Badge value={s.status} />
                  </td>
                  <td data-label="Created">{formatDate(s.created_at)}</td>
                  <td data-label="Products" className="num">
                    {s.products_count}
                  </td>
                  <td data-label="Orders 30 d" className="num">
                    {s.orders_30d}
                  </td>
                  <td data-label="Revenue 30 d" className="num">
                    {formatMinor(s.revenue_30d, s.currency)}
                  </td>
                  <td data-label="Last activity">{formatDateTime(s.last_activity_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {stores && cursor ? (
        <div className="load-more">
          <Button onClick={() => void load(cursor)} busy={loading}>
            Load more
          </Button>
        </div>
      ) : null}
    </div>
  );
}
