import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, request } from '../../api/client';
import type { InvitationPreview } from '../../api/team-types';
import { Button, ErrorBanner, Loading, TextField } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { Link } from '../../lib/router';

/**
 * /admin/invite/{token}, the link of an invitation e-mail (no session needed): the store and the
 * address invited; a new user sets a name and a password, an existing user enters their own password;
 * the answer signs them in (cookie) and the dashboard opens. An unknown, used or expired link says so.
 */
export function AcceptInvitePage({ token, onAccepted }: { token: string; onAccepted: () => void }) {
  const path = `/api/admin/invitations/${encodeURIComponent(token)}`;
  const invitation = useResource(
    (signal) =>
      request<{ data: InvitationPreview }>('GET', path, undefined, { signal, quietUnauthorized: true }),
    [path],
  );
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    document.title = 'Join a store · Emporium';
  }, []);

  const preview = invitation.data?.data;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // A wrong password of an existing user is 401: shown here, not taken for an ended session.
      await request('POST', `${path}/accept`, { name: name.trim(), password }, { quietUnauthorized: true });
      onAccepted();
    } catch (reason) {
      setError(reason);
      setBusy(false);
    }
  };
  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldError(field) : undefined);
  const gone = invitation.error instanceof ApiError && invitation.error.status === 404;

  return (
    <div className="sign-in">
      <div className="card sign-in-card stack">
        <div>
          <p className="eyebrow">Emporium</p>
          <h1 id="invite-title">{preview ? `Join ${preview.store.name}` : 'Join a store'}</h1>
        </div>
        {invitation.loading ? <Loading label="Opening the invitation…" /> : null}
        {gone ? (
          <div className="stack" role="alert">
            <p>
              <strong>This invitation can no longer be used.</strong> It was already accepted, withdrawn or is
              more than 7 days old. Ask the store's owner to invite you again.
            </p>
            <Link to="/">Sign in</Link>
          </div>
        ) : (
          <ErrorBanner error={invitation.error} title="Could not open the invitation" />
        )}
        {preview ? (
          <form className="stack" onSubmit={submit} aria-labelledby="invite-title">
            <p>
              You were invited to help run <strong>{preview.store.name}</strong> as{' '}
              <strong data-testid="invite-email">{preview.email}</strong>.
            </p>
            <ErrorBanner error={error} title="Could not join" />
            <input type="hidden" name="email" autoComplete="username" value={preview.email} />
            {preview.existing_user ? (
              <p className="hint">You already have an account: enter your password to join this store.</p>
            ) : (
              <TextField
                label="Your name"
                name="name"
                autoComplete="name"
                required
                maxLength={200}
                value={name}
                onChange={(e) => setName(e.target.value)}
                error={fieldError('name')}
              />
            )}
            <TextField
              label={preview.existing_user ? 'Your password' : 'Choose a password'}
              type="password"
              name="password"
              autoComplete={preview.existing_user ? 'current-password' : 'new-password'}
              required
              minLength={preview.existing_user ? undefined : 8}
              hint={preview.existing_user ? undefined : 'At least 8 characters.'}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              error={fieldError('password')}
            />
            <Button type="submit" variant="primary" busy={busy}>
              {preview.existing_user ? 'Sign in and join' : 'Join the store'}
            </Button>
          </form>
        ) : null}
      </div>
    </div>
  );
}
