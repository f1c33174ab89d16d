import { useState } from 'react';
import { ApiError, api } from '../../api/client';
import type { Analytics, AnalyticsTotals } from '../../api/types';
import { Card, Empty, ErrorBanner, Loading, PageHeader } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { formatDate, humanise } from '../../lib/format';
import { formatMoney } from '../../lib/money';
import { Link } from '../../lib/router';
import { useSession } from '../../session';
import { AreaChart, BarChart, type Point } from './charts';
import { OnboardingCard } from './OnboardingCard';
import { periodChange, RANGES, rangeDates } from './period';

function Kpi({
  label,
  current,
  previous,
  format,
  invert,
}: {
  label: string;
  current: number;
  previous: number;
  format: (v: number) => string;
  invert?: boolean;
}) {
  const delta = periodChange(current, previous);
  const good = delta.tone === 'flat' ? 'flat' : (delta.tone === 'up') !== Boolean(invert) ? 'good' : 'bad';
  return (
    <div className="kpi">
      <div className="kpi-label">{label}</div>
      <div className="kpi-value">{format(current)}</div>
      <div className={`kpi-change kpi-${good}`}>
        <span aria-hidden="true">{delta.tone === 'up' ? '▲' : delta.tone === 'down' ? '▼' : '■'}</span>{' '}
        {delta.text} <span className="hint">vs {format(previous)} in the previous period</span>
      </div>
    </div>
  );
}

function shortLabel(iso: string, interval: string): string {
  const date = new Date(iso.length === 10 ? `${iso}T00:00:00` : iso);
  if (Number.isNaN(date.getTime())) return iso;
  return interval === 'month'
    ? date.toLocaleDateString(undefined, { month: 'short', year: '2-digit' })
    : date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}

export function OverviewPage() {
  const { store } = useSession();
  const [rangeId, setRangeId] = useState<(typeof RANGES)[number]['id']>('30d');
  const range = RANGES.find((r) => r.id === rangeId) ?? RANGES[1];
  const analytics = useResource(
    (signal) => {
      const { from, to } = rangeDates(range.days, store.timezone);
      return api.get<{ data: Analytics }>(
        '/api/v1/analytics',
        { from, to, interval: range.interval },
        signal,
      );
    },
    [range.id, store.timezone],
  );

  const notAvailable = analytics.error instanceof ApiError && analytics.error.status === 404;
  const data = analytics.data?.data;
  const currency = data?.currency ?? store.currency;
  const money = (v: number) => formatMoney(v, currency);
  const count = (v: number) => new Intl.NumberFormat().format(v);
  const moneyAxis = (v: number) =>
    new Intl.NumberFormat(undefined, {
      style: 'currency',
      currency,
      notation: 'compact',
      maximumFractionDigits: 1,
    }).format(v);

  const revenuePoints: Point[] = (data?.timeseries ?? []).map((p) => ({
    label: shortLabel(p.period_start, range.interval),
    title: formatDate(p.period_start),
    value: p.revenue,
  }));
  const orderPoints: Point[] = (data?.timeseries ?? []).map((p) => ({
    label: shortLabel(p.period_start, range.interval),
    title: formatDate(p.period_start),
    value: p.orders,
  }));

  const kpis: {
    key: keyof AnalyticsTotals;
    label: string;
    format: (v: number) => string;
    invert?: boolean;
  }[] = [
    { key: 'revenue', label: 'Revenue', format: money },
    { key: 'net_revenue', label: 'Net revenue', format: money },
    { key: 'orders', label: 'Orders', format: count },
    { key: 'average_order_value', label: 'Average order', format: money },
    { key: 'items_sold', label: 'Items sold', format: count },
    { key: 'new_customers', label: 'New customers', format: count },
    { key: 'returning_customers', label: 'Returning customers', format: count },
    { key: 'discounts', label: 'Discounts given', format: money, invert: true },
  ];

  return (
    <div className="stack-lg">
      <PageHeader
        title="Overview"
        actions={
          <label className="inline-field">
            <span>Period</span>
            <select value={rangeId} onChange={(e) => setRangeId(e.target.value as typeof rangeId)}>
              {RANGES.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.label}
                </option>
              ))}
            </select>
          </label>
        }
      >
        {data ? (
          <p className="subtitle">
            {formatDate(data.from)} – {formatDate(data.to)}, compared with the period just before it
          </p>
        ) : null}
      </PageHeader>
      <OnboardingCard />

      {analytics.loading && !data ? <Loading label="Loading analytics…" /> : null}
      {notAvailable ? (
        <Empty title="Analytics are not available yet">
          <p>
            This server does not provide <code>/api/v1/analytics</code> yet. Your orders are all in{' '}
            <Link to="/orders">Orders</Link>.
          </p>
        </Empty>
      ) : (
        <ErrorBanner error={analytics.error} title="Could not load analytics" />
      )}

      {data ? (
        <>
          <div className="kpis">
            {kpis.map((k) => (
              <Kpi
                key={k.key}
                label={k.label}
                current={data.totals[k.key]}
                previous={data.previous_period[k.key]}
                format={k.format}
                invert={k.invert}
              />
            ))}
          </div>
          <div className="grid-2">
            <Card title="Revenue">
              {data.totals.orders === 0 && data.totals.revenue === 0 ? (
                <Empty title="No sales in this period" />
              ) : (
                <AreaChart points={revenuePoints} format={moneyAxis} label={`Revenue by ${range.interval}`} />
              )}
            </Card>
            <Card title="Orders">
              {data.totals.orders === 0 ? (
                <Empty title="No orders in this period" />
              ) : (
                <BarChart points={orderPoints} format={count} label={`Orders by ${range.interval}`} />
              )}
            </Card>
          </div>
          <div className="grid-2">
            <Card title="Top products">
              {data.top_products.length === 0 ? (
                <Empty title="Nothing sold yet in this period" />
              ) : (
                <div className="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th>Product</th>
                        <th className="num">Sold</th>
                        <th className="num">Revenue</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.top_products.map((p) => (
                        <tr key={p.product_id ?? p.name}>
                          <td>
                            {p.product_id ? <Link to={`/products/${p.product_id}`}>{p.name}</Link> : p.name}
                          </td>
                          <td className="num">{count(p.quantity)}</td>
                          <td className="num">{money(p.revenue)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </Card>
            <Card title="Orders by status">
              {Object.keys(data.status_breakdown).length === 0 ? (
                <Empty title="No orders in this period" />
              ) : (
                <ul className="breakdown">
                  {Object.entries(data.status_breakdown).map(([status, n]) => {
                    const total = Object.values(data.status_breakdown).reduce((a, b) => a + b, 0) || 1;
                    return (
                      <li key={status}>
                        <span>{humanise(status)}</span>
                        <span className="breakdown-bar" aria-hidden="true">
                          <span style={{ width: `${(n / total) * 100}%` }} />
                        </span>
                        <span className="num">{count(n)}</span>
                      </li>
                    );
                  })}
                </ul>
              )}
            </Card>
          </div>
        </>
      ) : null}
    </div>
  );
}
