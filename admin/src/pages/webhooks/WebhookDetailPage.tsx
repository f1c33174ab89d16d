import { type FormEvent, useState } from 'react';
import { ApiError, api, type Versioned, versionedRequest } from '../../api/client';
import { type DeliveryAttempt, WEBHOOK_EVENTS, type Webhook } from '../../api/types';
import { useConfirm } from '../../components/dialogs';
import { StaleNotice } from '../../components/StaleNotice';
import {
  Badge,
  Button,
  Card,
  ErrorBanner,
  Loading,
  Notice,
  PageHeader,
  SelectField,
  TextField,
} from '../../components/ui';
import { useResource } from '../../components/useResource';
import { StaleEdit, saveChanges } from '../../lib/concurrency';
import { formatDateTime } from '../../lib/format';
import { Link, navigate } from '../../lib/router';
import { DeliveryLog } from './DeliveryLog';
import { EventPicker } from './EventPicker';
import { SecretOnce } from './SecretOnce';

type Loaded = Versioned<{ data: Webhook }>;

/** The fields of the settings form, in the request body's terms (what saveChanges compares). */
const settingsOf = (webhook: Webhook) => ({
  url: webhook.url,
  description: webhook.description ?? null,
  events: webhook.events,
});

/**
 * The webhook's settings, saved with If-Match and only the fields changed (saveChanges): a save
 * made meanwhile in another page stays, and the same field changed there is refused (StaleNotice).
 */
function SettingsForm({
  loaded,
  onSubmit,
  onSaved,
  onReload,
}: {
  loaded: Loaded;
  /** A save starts: the page's notice of an earlier one no longer holds. */
  onSubmit: () => void;
  onSaved: (w: Loaded) => void;
  onReload: (w: Loaded) => void;
}) {
  const webhook = loaded.body.data;
  const [url, setUrl] = useState(webhook.url);
  const [description, setDescription] = useState(webhook.description ?? '');
  const [events, setEvents] = useState(webhook.events);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [stale, setStale] = useState<StaleEdit<Webhook>>();
  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldError(field) : undefined);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
    setBusy(true);
    setError(undefined);
    setStale(undefined);
    try {
      const res = await saveChanges({
        path: `/api/v1/webhooks/${webhook.id}`,
        loaded,
        payloadOf: settingsOf,
        payload: { url: url.trim(), description: description.trim() || null, events },
      });
      onSaved(res);
    } catch (reason) {
      if (reason instanceof StaleEdit) setStale(reason);
      else setError(reason);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Webhook settings">
      {stale ? (
        <StaleNotice what="webhook" fields={stale.fields} onReload={() => onReload(stale.latest)} />
      ) : null}
      <ErrorBanner error={error} title="Could not save the webhook" />
      <TextField
        label="Endpoint URL"
        type="url"
        required
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        error={fieldError('url')}
      />
      <TextField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
      <EventPicker value={events} onChange={setEvents} error={fieldError('events')} />
      <div className="form-actions">
        <Button type="submit" busy={busy}>
          Save
        </Button>
      </div>
    </form>
  );
}

function TestSend({ webhook, onSent }: { webhook: Webhook; onSent: (a: DeliveryAttempt) => void }) {
  const subscribed = webhook.events.includes('*')
    ? [...WEBHOOK_EVENTS]
    : WEBHOOK_EVENTS.filter((e) => webhook.events.includes(e));
  const [event, setEvent] = useState<string>(subscribed[0] ?? 'order.created');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [result, setResult] = useState<DeliveryAttempt>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      const res = await api.post<{ data: DeliveryAttempt }>(`/api/v1/webhooks/${webhook.id}/test`, { event });
      setResult(res.data);
      onSent(res.data);
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Send a test">
      <p className="hint">Sends sample data now, marked as a test (never retried).</p>
      <div className="row align-end">
        <SelectField
          label="Event"
          value={event}
          onChange={(e) => setEvent(e.target.value)}
          options={subscribed.map((e) => ({ value: e, label: e }))}
        />
        <Button type="submit" busy={busy} disabled={!subscribed.length}>
          Send test
        </Button>
      </div>
      <ErrorBanner error={error} title="Could not send the test" />
      {result ? (
        <div data-testid="test-result">
          {result.status === 'succeeded' ? (
            <Notice>
              Test delivered: HTTP {result.status_code} in {result.duration_ms} ms.
            </Notice>
          ) : (
            <Notice tone="warning">
              Test failed: {result.status_code ? `HTTP ${result.status_code}` : result.error}. See the log
              below.
            </Notice>
          )}
        </div>
      ) : null}
    </form>
  );
}

export function WebhookDetailPage({ id }: { id: string }) {
  const confirm = useConfirm();
  // Read with its version (ETag): every edit of the page is sent with If-Match.
  const webhook = useResource(
    (signal) => versionedRequest<{ data: Webhook }>('GET', `/api/v1/webhooks/${id}`, undefined, { signal }),
    [id],
  );
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [stale, setStale] = useState<StaleEdit<Webhook>>();
  const [secret, setSecret] = useState<string>();
  const [logVersion, setLogVersion] = useState(0);

  if (webhook.loading && !webhook.data) return <Loading label="Loading the webhook…" />;
  const loaded = webhook.data;
  const w = loaded?.body.data;
  if (!loaded || !w)
    return (
      <div className="stack">
        <PageHeader title="Webhook" />
        <ErrorBanner error={webhook.error} title="Could not load the webhook" />
        <Link to="/webhooks">Back to webhooks</Link>
      </div>
    );

  const setActive = async (active: boolean) => {
    if (!active) {
      const ok = await confirm({
        title: 'Disable this webhook?',
        message: 'No event is sent to it until it is enabled again; events meanwhile are not queued for it.',
        confirmLabel: 'Disable',
        danger: true,
      });
      if (!ok) return;
    }
    setError(undefined);
    setStale(undefined);
    setNotice(undefined);
    try {
      // Refused only when someone else switched it meanwhile (then the page says so).
      webhook.set(
        await saveChanges({
          path: `/api/v1/webhooks/${w.id}`,
          loaded,
          payloadOf: (latest: Webhook) => ({ active: latest.active }),
          payload: { active },
        }),
      );
      setNotice(active ? 'The webhook is enabled again.' : 'The webhook is disabled.');
    } catch (reason) {
      if (reason instanceof StaleEdit) setStale(reason);
      else setError(reason);
    }
  };

  const rotate = async () => {
    const ok = await confirm({
      title: 'Make a new signing secret?',
      message: 'The current secret stops working at once: update your receiver with the new one.',
      confirmLabel: 'Rotate secret',
      danger: true,
    });
    if (!ok) return;
    setError(undefined);
    try {
      const res = await api.post<{ data: Webhook & { secret: string } }>(
        `/api/v1/webhooks/${w.id}/rotate-secret`,
      );
      setSecret(res.data.secret);
    } catch (reason) {
      setError(reason);
    }
  };

  const remove = async () => {
    const ok = await confirm({
      title: 'Delete this webhook?',
      message: `${w.url} stops receiving events, and its delivery log is deleted.`,
      confirmLabel: 'Delete webhook',
      danger: true,
    });
    if (!ok) return;
    try {
      await api.delete(`/api/v1/webhooks/${w.id}`);
      navigate('/webhooks');
    } catch (reason) {
      setError(reason);
    }
  };

  return (
    <div className="stack-lg">
      <p className="breadcrumb">
        <Link to="/webhooks">Webhooks</Link> /
      </p>
      <PageHeader
        title={w.description || 'Webhook'}
        actions={
          <>
            <Button onClick={() => void rotate()}>Rotate secret</Button>
            <Button variant="danger" onClick={() => void remove()}>
              Delete
            </Button>
          </>
        }
      >
        <p className="subtitle break">{w.url}</p>
      </PageHeader>
      {notice ? <Notice>{notice}</Notice> : null}
      <ErrorBanner error={error} title="Something went wrong" />
      {stale ? (
        <StaleNotice
          what="webhook"
          fields={stale.fields}
          onReload={() => {
            webhook.set(stale.latest);
            setStale(undefined);
          }}
        />
      ) : null}
      {!w.active ? (
        <div className="banner banner-warning" role="status">
          <strong>This webhook is disabled.</strong>
          <p>{w.disabled_reason ?? 'It was disabled by a merchant.'}</p>
          <Button variant="primary" onClick={() => void setActive(true)}>
            Enable again
          </Button>
        </div>
      ) : null}
      <div className="grid-main">
        <div className="stack-lg">
          <Card title="Delivery log">
            <DeliveryLog webhook={w} version={logVersion} />
          </Card>
        </div>
        <div className="stack-lg">
          <Card title="Status">
            <p>
              <Badge value={w.active ? 'active' : 'disabled'} />{' '}
              {w.consecutive_failures ? (
                <span className="text-bad">{w.consecutive_failures} failures in a row</span>
              ) : null}
            </p>
            <p className="hint" data-testid="last-delivery">
              Last successful delivery:{' '}
              {w.last_success_at ? formatDateTime(w.last_success_at) : 'none yet (tests are not counted)'}
            </p>
            <p className="hint" data-testid="last-test">
              Last test:{' '}
              {w.last_test
                ? `${w.last_test.succeeded ? 'succeeded' : 'failed'}${
                    w.last_test.status_code ? ` (HTTP ${w.last_test.status_code})` : ''
                  } ${formatDateTime(w.last_test.at)}`
                : 'none'}
            </p>
            {w.active ? (
              <Button variant="link" onClick={() => void setActive(false)}>
                Disable
              </Button>
            ) : null}
          </Card>
          <Card title="Send a test">
            <TestSend
              webhook={w}
              onSent={() => {
                setLogVersion((v) => v + 1);
                webhook.reload();
              }}
            />
          </Card>
          <Card title="Settings">
            <SettingsForm
              key={w.updated_at}
              loaded={loaded}
              onSubmit={() => setNotice(undefined)}
              onSaved={(next) => {
                webhook.set(next);
                setNotice('The webhook was saved.');
              }}
              onReload={(latest) => {
                webhook.set(latest);
                setNotice(undefined);
              }}
            />
          </Card>
        </div>
      </div>
      {secret ? (
        <SecretOnce
          title="New signing secret"
          what="new signing secret"
          secret={secret}
          onClose={() => setSecret(undefined)}
        />
      ) : null}
    </div>
  );
}
