import { useState } from 'react';
import { ApiError, api } from '../../api/client';
import { type ApiKey, type CreatedApiKey, SCOPES } from '../../api/types';
import { ModalForm, useConfirm } from '../../components/dialogs';
import {
  Badge,
  Button,
  Card,
  Checkbox,
  Empty,
  ErrorBanner,
  Loading,
  Notice,
  TextField,
} from '../../components/ui';
import { useResource } from '../../components/useResource';
import { formatDateTime } from '../../lib/format';
import { SecretOnce } from '../webhooks/SecretOnce';

const RESERVED = new Set(['storefront:read', 'customer:read', 'customer:write']);

function CreateKey({ onClose, onCreated }: { onClose: () => void; onCreated: (key: CreatedApiKey) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const toggle = (scope: string, on: boolean) =>
    setScopes((s) => (on ? [...s, scope] : s.filter((x) => x !== scope)));
  const submit = async () => {
    if (scopes.length === 0) {
      setError(
        new ApiError(400, 'invalid_request', 'Choose at least one scope.', [
          { field: 'scopes', message: 'choose at least one' },
        ]),
      );
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const ordered = SCOPES.filter((s) => scopes.includes(s));
      const res = await api.post<{ data: CreatedApiKey }>('/api/admin/api-keys', {
        ...(name.trim() ? { name: name.trim() } : {}),
        scopes: ordered,
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
      title="New API key"
      submitLabel="Create key"
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
    >
      <ErrorBanner error={error} title="Could not create the key" />
      <TextField
        label="Name"
        autoFocus
        placeholder="ERP sync"
        value={name}
        onChange={(e) => setName(e.target.value)}
      />
      <fieldset className="stack-sm">
        <legend>Scopes</legend>
        <div className="form-actions start">
          <Button variant="link" onClick={() => setScopes(SCOPES.filter((s) => !RESERVED.has(s)))}>
            Select all
          </Button>
          <Button
            variant="link"
            onClick={() => setScopes(SCOPES.filter((s) => s.endsWith(':read') && !RESERVED.has(s)))}
          >
            Read only
          </Button>
          <Button variant="link" onClick={() => setScopes([])}>
            None
          </Button>
        </div>
        <div className="checkbox-grid">
          {SCOPES.map((scope) => (
            <Checkbox
              key={scope}
              label={<code>{scope}</code>}
              hint={RESERVED.has(scope) ? '(reserved, grants nothing yet)' : undefined}
              checked={scopes.includes(scope)}
              onChange={(e) => toggle(scope, e.target.checked)}
            />
          ))}
        </div>
      </fieldset>
    </ModalForm>
  );
}

/** Keys of the store: create with scope checkboxes (the secret shown once), revoke. */
export function ApiKeys() {
  const confirm = useConfirm();
  const keys = useResource(
    (signal) => api.get<{ data: ApiKey[] }>('/api/admin/api-keys', undefined, signal),
    [],
  );
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey>();
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<unknown>();

  const revoke = async (key: ApiKey) => {
    const ok = await confirm({
      title: `Revoke ${key.name || key.prefix}?`,
      message: 'Every integration using this key stops working at once. This cannot be undone.',
      confirmLabel: 'Revoke key',
      danger: true,
    });
    if (!ok) return;
    setError(undefined);
    try {
      await api.delete(`/api/admin/api-keys/${key.id}`);
      setNotice(`${key.name || key.prefix} was revoked.`);
      keys.reload();
    } catch (reason) {
      setError(reason);
    }
  };

  const list = keys.data?.data ?? [];
  return (
    <Card
      title="API keys"
      actions={
        <Button variant="primary" onClick={() => setCreating(true)}>
          New API key
        </Button>
      }
    >
      <div className="stack">
        <p className="hint">
          Keys open the merchant API (<code>/api/v1</code>, header <code>X-API-Key</code>) with the scopes you
          choose.
        </p>
        {notice ? <Notice>{notice}</Notice> : null}
        <ErrorBanner error={error ?? keys.error} title="Something went wrong with API keys" />
        {keys.loading && !keys.data ? <Loading label="Loading keys…" /> : null}
        {keys.data && list.length === 0 ? <Empty title="No API keys yet" /> : null}
        {list.length > 0 ? (
          <div className="table-wrap">
            <table className="responsive" data-testid="api-keys">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Key</th>
                  <th>Scopes</th>
                  <th>Last used</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((k) => (
                  <tr key={k.id} className={k.revoked_at ? 'removed' : ''}>
                    <td data-label="Name">
                      <strong>{k.name || 'Unnamed'}</strong>
                      <div className="hint">created {formatDateTime(k.created_at)}</div>
                    </td>
                    <td data-label="Key">
                      <code>{k.prefix}…</code>
                    </td>
                    <td data-label="Scopes" className="scopes">
                      {k.scopes.length === SCOPES.length ? 'All scopes' : k.scopes.join(', ')}
                    </td>
                    <td data-label="Last used">
                      {k.last_used_at ? formatDateTime(k.last_used_at) : 'Never'}
                    </td>
                    <td className="row-actions">
                      {k.revoked_at ? (
                        <Badge value="revoked" label={`Revoked ${formatDateTime(k.revoked_at)}`} />
                      ) : (
                        <Button
                          variant="link"
                          onClick={() => void revoke(k)}
                          aria-label={`Revoke ${k.name || k.prefix}`}
                        >
                          Revoke
                        </Button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </div>
      {creating ? (
        <CreateKey
          onClose={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            setCreated(key);
            keys.reload();
          }}
        />
      ) : null}
      {created ? (
        <SecretOnce
          title="API key created"
          what="API key"
          secret={created.key}
          onClose={() => setCreated(undefined)}
        />
      ) : null}
    </Card>
  );
}
