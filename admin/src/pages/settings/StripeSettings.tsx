import { useState } from 'react';
import { ApiError, api, type Versioned, versionedRequest } from '../../api/client';
import type { StripeSettings as Settings } from '../../api/types';
import { useConfirm } from '../../components/dialogs';
import { StaleNotice } from '../../components/StaleNotice';
import { Badge, Button, Card, ErrorBanner, Loading, Notice, TextField } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { replaceDocument, StaleEdit } from '../../lib/concurrency';

const EMPTY = { secret_key: '', publishable_key: '', webhook_secret: '' };
const PATH = '/api/v1/payments/stripe';

/** What the card shows of a connection, by field: what a refused save names as changed by others. */
const shown = (s: Settings) => ({
  status: s.enabled,
  publishable_key: s.publishable_key,
  secret_key: s.secret_key_last4,
});

/**
 * Card payments through the store's own Stripe account (PUT/GET/DELETE /api/v1/payments/stripe):
 * the webhook URL to give Stripe, the keys (the secrets are sent once and never shown again), and
 * disconnect. The keys are sent whole with the ETag of the connection the card shows (If-Match):
 * when someone else connected or disconnected meanwhile, nothing is saved and StaleNotice says so.
 */
export function StripeSettings() {
  const confirm = useConfirm();
  const settings = useResource(
    (signal) => versionedRequest<{ data: Settings }>('GET', PATH, undefined, { signal }),
    [],
  );
  const [keys, setKeys] = useState(EMPTY);
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const [stale, setStale] = useState<StaleEdit<Settings>>();
  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldError(field) : undefined);
  const current = settings.data?.body.data;

  const showLatest = (latest: Versioned<{ data: Settings }>) => {
    settings.set(latest);
    setKeys(EMPTY);
    setEditing(false);
    setStale(undefined);
  };

  const connect = async () => {
    // The form is shown only over loaded settings: there is always a version to send.
    const loaded = settings.data;
    if (!loaded) return;
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    setStale(undefined);
    try {
      showLatest(await replaceDocument({ path: PATH, loaded, describe: shown, body: keys }));
      setNotice('Stripe is connected. Buyers can now pay by card.');
    } catch (reason) {
      if (reason instanceof StaleEdit) setStale(reason as StaleEdit<Settings>);
      else setError(reason);
    } finally {
      setBusy(false);
    }
  };

  const disconnect = async () => {
    const ok = await confirm({
      title: 'Disconnect Stripe?',
      message: 'Checkout stops offering card payments at once. Payments already started still settle.',
      confirmLabel: 'Disconnect',
      danger: true,
    });
    if (!ok) return;
    setError(undefined);
    setStale(undefined);
    try {
      await api.delete(PATH);
      setNotice('Stripe was disconnected.');
      settings.reload();
    } catch (reason) {
      setError(reason);
    }
  };

  const set = (field: keyof typeof EMPTY) => (e: { target: { value: string } }) =>
    setKeys((k) => ({ ...k, [field]: e.target.value.trim() }));

  return (
    <Card
      title="Stripe"
      actions={
        current?.enabled ? (
          <Badge value="active" label="Connected" />
        ) : (
          <Badge value="disconnected" label="Not connected" />
        )
      }
    >
      <div className="stack" data-testid="stripe-settings">
        <p className="hint">
          Take card payments through your own Stripe account. In Stripe's dashboard, add a webhook endpoint
          with this URL and the events <code>payment_intent.succeeded</code>,{' '}
          <code>payment_intent.payment_failed</code>, <code>payment_intent.canceled</code> and{' '}
          <code>charge.refunded</code>, then paste its signing secret below with your API keys.
        </p>
        {current ? (
          <div className="stack">
            <p>
              Webhook URL: <code data-testid="stripe-webhook-url">{current.webhook_url}</code>
            </p>
            {current.enabled ? (
              <p>
                Publishable key <code>{current.publishable_key}</code> · secret key ending{' '}
                <code data-testid="stripe-last4">{current.secret_key_last4}</code>
              </p>
            ) : null}
          </div>
        ) : null}
        {settings.loading && !settings.data ? <Loading label="Loading Stripe settings…" /> : null}
        {notice ? <Notice>{notice}</Notice> : null}
        {stale ? (
          <StaleNotice
            what="Stripe connection"
            fields={stale.fields}
            onReload={() => showLatest(stale.latest)}
          />
        ) : null}
        <ErrorBanner error={error ?? settings.error} title="Could not change the Stripe connection" />
        {editing || (current && !current.enabled) ? (
          <form
            className="stack"
            aria-label="Connect Stripe"
            onSubmit={(e) => {
              e.preventDefault();
              void connect();
            }}
          >
            <TextField
              label="Secret key"
              name="secret_key"
              type="password"
              autoComplete="off"
              placeholder="sk_live_…"
              value={keys.secret_key}
              onChange={set('secret_key')}
              error={fieldError('secret_key')}
              required
            />
            <TextField
              label="Publishable key"
              name="publishable_key"
              autoComplete="off"
              placeholder="pk_live_…"
              value={keys.publishable_key}
              onChange={set('publishable_key')}
              error={fieldError('publishable_key')}
              required
            />
            <TextField
              label="Webhook signing secret"
              name="webhook_secret"
              type="password"
              autoComplete="off"
              placeholder="whsec_…"
              value={keys.webhook_secret}
              onChange={set('webhook_secret')}
              error={fieldError('webhook_secret')}
              required
            />
            <p className="hint">
              The secret key and the signing secret are stored encrypted and never shown again.
            </p>
            <div className="form-actions">
              {editing ? <Button onClick={() => setEditing(false)}>Cancel</Button> : null}
              <Button type="submit" variant="primary" busy={busy}>
                Connect Stripe
              </Button>
            </div>
          </form>
        ) : null}
        {current?.enabled && !editing ? (
          <div className="form-actions">
            <Button onClick={() => setEditing(true)}>Replace keys</Button>
            <Button variant="danger" onClick={() => void disconnect()}>
              Disconnect
            </Button>
          </div>
        ) : null}
      </div>
    </Card>
  );
}
