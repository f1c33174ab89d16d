import { useState } from 'react';
import { ApiError, api, type ListResult } from '../../api/client';
import type { Webhook } from '../../api/types';
import { Allowed } from '../../components/access';
import { ModalForm } from '../../components/dialogs';
import {
  Badge,
  Button,
  Empty,
  ErrorBanner,
  Loading,
  PageHeader,
  Pagination,
  TextField,
} from '../../components/ui';
import { useResource } from '../../components/useResource';
import { formatDateTime } from '../../lib/format';
import { Link, navigate } from '../../lib/router';
import { EventPicker, type SubscribedEvent } from './EventPicker';
import { SecretOnce } from './SecretOnce';

function CreateWebhook({
  onClose,
  onCreated,
}: {
  onClose: () => void;
  onCreated: (webhook: Webhook & { secret: string }) => void;
}) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<SubscribedEvent[]>([
    'order.created',
    'order.paid',
    'order.updated',
    'order.cancelled',
  ]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldError(field) : undefined);
  const submit = async () => {
    if (events.length === 0) {
      setError(
        new ApiError(400, 'invalid_request', 'Choose at least one event.', [
          { field: 'events', message: 'choose at least one event' },
        ]),
      );
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const res = await api.post<{ data: Webhook & { secret: string } }>('/api/v1/webhooks', {
        url: url.trim(),
        events,
        description: description.trim() || null,
      });
      onCreated(res.data);
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };
  return (
    <ModalForm
      open
      wide
      title="New webhook"
      submitLabel="Create webhook"
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
    >
      <ErrorBanner error={error} title="Could not create the webhook" />
      <TextField
        label="Endpoint URL"
        type="url"
        required
        autoFocus
        placeholder="https://example.com/hooks/emporium"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        error={fieldError('url')}
      />
      <TextField
        label="Description"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        error={fieldError('description')}
      />
      <EventPicker value={events} onChange={setEvents} error={fieldError('events')} />
    </ModalForm>
  );
}

export function WebhooksPage() {
  const [page, setPage] = useState(1);
  const webhooks = useResource(
    (signal) => api.get<ListResult<Webhook>>('/api/v1/webhooks', { page, limit: 25 }, signal),
    [page],
  );
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Webhook & { secret: string }>();
  return (
    <div className="stack-lg">
      <PageHeader
        title="Webhooks"
        actions={
          <Allowed need={{ scope: 'webhooks:write' }}>
            <Button variant="primary" onClick={() => setCreating(true)}>
              New webhook
            </Button>
          </Allowed>
        }
      >
        <p className="subtitle">Signed HTTP POSTs to your systems when orders and stock change.</p>
      </PageHeader>
      <ErrorBanner error={webhooks.error} title="Could not load webhooks" />
      {webhooks.loading && !webhooks.data ? <Loading label="Loading webhooks…" /> : null}
      {webhooks.data && webhooks.data.data.length === 0 ? (
        <Empty title="No webhooks yet">
          <p>Add an endpoint to receive order and stock events.</p>
        </Empty>
      ) : null}
      {webhooks.data && webhooks.data.data.length > 0 ? (
        <div className="table-wrap">
          <table className="responsive">
            <thead>
              <tr>
                <th>Endpoint</th>
                <th>Events</th>
                <th>Status</th>
                <th>Last delivery</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.data.data.map((w) => (
                <tr key={w.id}>
                  <td data-label="Endpoint" className="break">
                    <Link to={`/webhooks/${w.id}`} className="strong">
                      {w.url}
                    </Link>
                    {w.description ? <div className="hint">{w.description}</div> : null}
                  </td>
                  <td data-label="Events">{w.events.includes('*') ? 'All events' : w.events.join(', ')}</td>
                  <td data-label="Status">
                    <Badge value={w.active ? 'active' : 'disabled'} />
                    {w.consecutive_failures ? (
                      <div className="hint">{w.consecutive_failures} failures in a row</div>
                    ) : null}
                  </td>
                  <td data-label="Last delivery">
                    {w.last_success_at ? formatDateTime(w.last_success_at) : 'None yet'}
                    {w.last_test ? (
                      <div className="hint">
                        Test {w.last_test.succeeded ? 'succeeded' : 'failed'} {formatDateTime(w.last_test.at)}
                      </div>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pagination meta={webhooks.data?.meta.pagination} onPage={setPage} />
      {creating ? (
        <CreateWebhook
          onClose={() => setCreating(false)}
          onCreated={(webhook) => {
            setCreating(false);
            setCreated(webhook);
            webhooks.reload();
          }}
        />
      ) : null}
      {created ? (
        <SecretOnce
          title="Webhook created"
          what="signing secret"
          secret={created.secret}
          onClose={() => {
            const id = created.id;
            setCreated(undefined);
            navigate(`/webhooks/${id}`);
          }}
        />
      ) : null}
    </div>
  );
}
