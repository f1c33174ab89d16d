import { type FormEvent, useState } from 'react';
import { api } from '../../api/client';
import type { AuditEntry, AuditPage, Member } from '../../api/team-types';
import type { ApiKey } from '../../api/types';
import { Button, Empty, ErrorBanner, Loading, PageHeader, SelectField, TextField } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { formatDateTime } from '../../lib/format';
import { Link } from '../../lib/router';
import { useTimeZone } from '../../session';
import { type AuditFilters, auditQuery, NO_FILTERS } from './audit-query';

/** Resource types offered before the log shows its own (the field takes any). */
const COMMON_TYPES = [
  'order',
  'product',
  'category',
  'discount',
  'customer',
  'webhook',
  'api_key',
  'staff',
  'staff_invitation',
  'store',
];

/** Where a resource of the log opens in the dashboard, for the kinds that have a page. */
const PAGES: Record<string, string> = {
  order: '/orders/',
  product: '/products/',
  customer: '/customers/',
  webhook: '/webhooks/',
};

const ACTOR_TYPES: Record<AuditEntry['actor']['type'], string> = {
  user: 'Dashboard user',
  api_key: 'API key',
  system: 'System',
};

/**
 * Activity (owners): the store's audit log (GET /api/v1/audit-log), newest first, filtered by resource
 * type, actor and days in the store's time zone, fifty at a time with "Load more".
 */
export function ActivityPage() {
  const timeZone = useTimeZone();
  const [draft, setDraft] = useState<AuditFilters>(NO_FILTERS);
  const [filters, setFilters] = useState<AuditFilters>(NO_FILTERS);
  const first = useResource(
    (signal) => api.get<AuditPage>('/api/v1/audit-log', auditQuery(filters, timeZone), signal),
    [filters, timeZone],
  );
  const members = useResource(
    (signal) => api.get<{ data: Member[] }>('/api/admin/staff', undefined, signal),
    [],
  );
  const keys = useResource(
    (signal) => api.get<{ data: ApiKey[] }>('/api/admin/api-keys', undefined, signal),
    [],
  );
  // The pages after the first, kept with the first page they follow: a new first page (other filters,
  // a reload) starts the list again.
  const [more, setMore] = useState<{ after: AuditPage; pages: AuditPage[] }>();
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<unknown>();

  const following = more && more.after === first.data ? more.pages : [];
  const pages = first.data ? [first.data, ...following] : [];
  const entries = pages.flatMap((p) => p.data);
  const cursor = pages.at(-1)?.next_cursor ?? null;

  const loadMore = async () => {
    const after = first.data;
    if (!cursor || !after) return;
    setLoadingMore(true);
    setMoreError(undefined);
    try {
      const page = await api.get<AuditPage>('/api/v1/audit-log', auditQuery(filters, timeZone, cursor));
      setMore({ after, pages: [...following, page] });
    } catch (reason) {
      setMoreError(reason);
    } finally {
      setLoadingMore(false);
    }
  };

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters(draft);
  };
  const filtered = Object.values(filters).some(Boolean);
  const types = [...new Set([...COMMON_TYPES, ...entries.map((e) => e.resource_type)])].sort();
  const actors = [
    { value: '', label: 'Anyone' },
    ...(members.data?.data ?? []).map((m) => ({ value: m.user_id, label: m.name || m.email })),
    ...(keys.data?.data ?? []).map((k) => ({ value: k.id, label: `API key ${k.name || k.prefix}` })),
  ];

  return (
    <div className="stack-lg">
      <PageHeader title="Activity">
        <p className="hint">Every change made in this store, by whom, from where. Kept 365 days.</p>
      </PageHeader>
      <form className="card audit-filters" onSubmit={apply} aria-label="Filter the activity">
        <TextField
          label="Resource type"
          list="audit-resource-types"
          value={draft.resource_type}
          onChange={(e) => setDraft({ ...draft, resource_type: e.target.value })}
        />
        <datalist id="audit-resource-types">
          {types.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
        <SelectField
          label="Who"
          options={actors}
          value={draft.actor_id}
          onChange={(e) => setDraft({ ...draft, actor_id: e.target.value })}
        />
        <TextField
          label="From"
          type="date"
          value={draft.from}
          onChange={(e) => setDraft({ ...draft, from: e.target.value })}
        />
        <TextField
          label="To"
          type="date"
          value={draft.to}
          min={draft.from || undefined}
          onChange={(e) => setDraft({ ...draft, to: e.target.value })}
        />
        <div className="form-actions start">
          <Button type="submit" variant="primary">
            Apply filters
          </Button>
          {filtered ? (
            <Button
              variant="link"
              onClick={() => {
                setDraft(NO_FILTERS);
                setFilters(NO_FILTERS);
              }}
            >
              Clear filters
            </Button>
          ) : null}
        </div>
      </form>
      <ErrorBanner error={first.error} title="Could not load the activity" />
      {first.loading && !first.data ? <Loading label="Loading the activity…" /> : null}
      {first.data && entries.length === 0 ? (
        <Empty title={filtered ? 'Nothing matches these filters' : 'No activity yet'} />
      ) : null}
      {entries.length > 0 ? (
        <div className={`table-wrap ${first.loading ? 'is-refreshing' : ''}`}>
          <table className="responsive" data-testid="audit-log">
            <thead>
              <tr>
                <th>When</th>
                <th>Who</th>
                <th>Action</th>
                <th>Resource</th>
                <th>Address</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id}>
                  <td data-label="When">{formatDateTime(e.created_at)}</td>
                  <td data-label="Who">
                    <div>
                      {e.actor.name || e.actor.id || ACTOR_TYPES[e.actor.type]}
                      <div className="hint">{ACTOR_TYPES[e.actor.type]}</div>
                    </div>
                  </td>
                  <td data-label="Action">
                    <code>{e.action}</code>
                  </td>
                  <td data-label="Resource">
                    <div>
                      <Resource entry={e} />
                    </div>
                  </td>
                  <td data-label="Address">{e.ip ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <ErrorBanner error={moreError} title="Could not load more" />
      {cursor ? (
        <div className="form-actions center">
          <Button onClick={() => void loadMore()} busy={loadingMore}>
            Load more
          </Button>
        </div>
      ) : null}
    </div>
  );
}

function Resource({ entry }: { entry: AuditEntry }) {
  const page = PAGES[entry.resource_type];
  if (!entry.resource_id) return <>{entry.resource_type}</>;
  return (
    <>
      {entry.resource_type}{' '}
      {page ? (
        <Link to={`${page}${entry.resource_id}`}>
          <code>{entry.resource_id.slice(0, 8)}…</code>
          <span className="visually-hidden"> (open the {entry.resource_type})</span>
        </Link>
      ) : (
        <code title={entry.resource_id}>{entry.resource_id.slice(0, 8)}…</code>
      )}
    </>
  );
}
