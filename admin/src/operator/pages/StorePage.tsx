import { useEffect, useState } from 'react';
import { type ApiError, api } from '../../api/client';
import { useConfirm } from '../../components/dialogs';
import { Badge, Button, Card, Empty, ErrorBanner, Loading, Notice, PageHeader } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { formatDate, formatDateTime } from '../../lib/format';
import { formatMinor } from '../../lib/money';
import { Link } from '../../lib/router';
import { useNotice } from '../OperatorApp';
import type { OperatorStore, OperatorStoreDetail } from '../types';
import { DeleteStoreDialog, SuspendDialog } from './StoreDialogs';

/** Where the store's shop answers: its own domain when it has one, else /shop/{slug}/ here. */
function shopAddress(store: OperatorStoreDetail): string {
  if (store.custom_domain) return `${window.location.protocol}//${store.custom_domain}/`;
  return `/shop/${encodeURIComponent(store.slug)}/`;
}

/** One store: its figures, owner, domain and status; suspend or unsuspend it; delete it. */
export function StorePage({ id }: { id: string }) {
  const { setNotice } = useNotice();
  const confirm = useConfirm();
  const store = useResource(
    (signal) =>
      api.get<{ data: OperatorStoreDetail }>(`/api/operator/stores/${encodeURIComponent(id)}`, {}, signal),
    [id],
  );
  const [dialog, setDialog] = useState<'suspend' | 'delete'>();
  const [changed, setChanged] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  // A notice raised for the list (a deletion) is not repeated once the operator has moved on.
  useEffect(() => setNotice(undefined), [setNotice]);

  const name = store.data?.data.name;
  useEffect(() => {
    document.title = `${name ?? 'Store'} · Emporium operators`;
  }, [name]);

  /** The suspend and unsuspend answers are the list item: the page's other fields stay as read. */
  const applied = (item: OperatorStore, message: string) => {
    if (store.data) store.set({ data: { ...store.data.data, ...item } });
    store.reload();
    setChanged(message);
  };

  const unsuspend = async (s: OperatorStoreDetail) => {
    const ok = await confirm({
      title: `Unsuspend ${s.name}?`,
      message: (
        <p>Its shop, checkout, API keys and dashboard work again at once, and waiting webhooks are sent.</p>
      ),
      confirmLabel: 'Unsuspend',
    });
    if (!ok) return;
    setBusy(true);
    setError(undefined);
    try {
      const res = await api.post<{ data: OperatorStore }>(
        `/api/operator/stores/${encodeURIComponent(s.id)}/unsuspend`,
      );
      applied(res.data, `${s.name} is active again.`);
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };

  if (store.loading && !store.data) return <Loading label="Loading the store…" />;
  if (store.error && (store.error as ApiError).status === 404) {
    return (
      <Empty title="This store does not exist">
        <p>It may have been deleted.</p>
        <Link to="/">Back to the stores</Link>
      </Empty>
    );
  }
  if (!store.data) return <ErrorBanner error={store.error} title="Could not load the store" />;
  const s = store.data.data;
  const suspended = s.status === 'suspended';

  return (
    <div className="stack-lg">
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to="/">Stores</Link>
      </nav>
      <PageHeader
        title={s.name}
        actions={
          suspended ? (
            <Button variant="primary" busy={busy} onClick={() => void unsuspend(s)}>
              Unsuspend
            </Button>
          ) : (
            <Button variant="danger" onClick={() => setDialog('suspend')}>
              Suspend
            </Button>
          )
        }
      >
        <p className="operator-subtitle">
          <code>{s.slug}</code> <Badge value={s.status} />
        </p>
      </PageHeader>
      <div aria-live="polite">{changed ? <Notice>{changed}</Notice> : null}</div>
      <ErrorBanner error={error} title="Could not change the store" />
      {suspended ? (
        <div className="banner banner-warning">
          <strong>Suspended {formatDateTime(s.suspended_at)}</strong>
          <p>Reason: {s.suspension_reason}</p>
        </div>
      ) : null}

      <section className="kpis" aria-label="Figures">
        <Figure label="Products" value={String(s.products_count)} />
        <Figure label="Orders, last 30 days" value={String(s.orders_30d)} />
        <Figure label="Revenue, last 30 days" value={formatMinor(s.revenue_30d, s.currency)} />
        <Figure label="Members" value={String(s.members_count)} />
      </section>

      <Card title="Store">
        <dl className="facts">
          <dt>Owner</dt>
          <dd className="break-email">{s.owner_email ?? '—'}</dd>
          <dt>Domain</dt>
          <dd>{s.custom_domain ?? 'None (the shop is at this server)'}</dd>
          <dt>Shop</dt>
          <dd>
            <a href={shopAddress(s)} target="_blank" rel="noopener">
              {s.custom_domain ? s.custom_domain : `/shop/${s.slug}/`}
              <span className="visually-hidden"> (opens in a new tab)</span>
            </a>
          </dd>
          <dt>Currency</dt>
          <dd>{s.currency}</dd>
          <dt>Time zone</dt>
          <dd>{s.timezone}</dd>
          <dt>Created</dt>
          <dd>{formatDate(s.created_at)}</dd>
          <dt>Last activity</dt>
          <dd>{formatDateTime(s.last_activity_at)}</dd>
        </dl>
      </Card>

      <Card title="Danger zone" className="danger-zone">
        <div className="danger-zone-row">
          <div>
            <strong>Delete this store</strong>
            <p className="hint">
              The store leaves the list at once; its data and media are removed in the background. This cannot
              be undone.
            </p>
          </div>
          <Button variant="danger" onClick={() => setDialog('delete')}>
            Delete store…
          </Button>
        </div>
      </Card>

      <SuspendDialog
        store={s}
        open={dialog === 'suspend'}
        onClose={() => setDialog(undefined)}
        onSuspended={(item) => {
          setDialog(undefined);
          applied(item, `${s.name} is suspended.`);
        }}
      />
      <DeleteStoreDialog store={s} open={dialog === 'delete'} onClose={() => setDialog(undefined)} />
    </div>
  );
}

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div className="kpi">
      <div className="kpi-label">{label}</div>
      <div className="kpi-value">{value}</div>
    </div>
  );
}
