import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError, request } from '../../api/client';
import { Button, ErrorBanner, Notice, TextField } from '../../components/ui';
import type { Operator } from '../types';

/** The operator's e-mail and password: its own cookie (emporium_operator), not a store's session. */
export function SignInPage({
  expired,
  signedOut,
  onSignedIn,
}: {
  expired: boolean;
  signedOut: boolean;
  onSignedIn: (operator: Operator) => void;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const emailRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    document.title = 'Sign in · Emporium operators';
    emailRef.current?.focus();
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // A wrong password is 401 too: shown here, not taken for an ended session.
      const res = await request<{ data: { operator: Operator } }>(
        'POST',
        '/api/operator/auth/login',
        { email: email.trim(), password },
        { quietUnauthorized: true },
      );
      onSignedIn(res.data.operator);
    } catch (reason) {
      setError(reason);
      setBusy(false);
    }
  };

  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldError(field) : undefined);

  return (
    <main className="sign-in">
      <form className="card sign-in-card stack" onSubmit={submit} aria-labelledby="sign-in-title">
        <div>
          <p className="eyebrow">Emporium operators</p>
          <h1 id="sign-in-title">Sign in to the operator console</h1>
        </div>
        <div aria-live="polite">
          {expired ? <Notice tone="info">Your session ended. Please sign in again.</Notice> : null}
          {signedOut ? <Notice tone="info">You are signed out.</Notice> : null}
        </div>
        <ErrorBanner error={error} title="Could not sign in" />
        <TextField
          ref={emailRef}
          label="E-mail"
          type="email"
          name="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={fieldError('email')}
        />
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={fieldError('password')}
        />
        <Button type="submit" variant="primary" busy={busy}>
          Sign in
        </Button>
      </form>
    </main>
  );
}
