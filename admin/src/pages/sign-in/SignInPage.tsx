import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError, request } from '../../api/client';
import type { Session } from '../../api/types';
import { Button, ErrorBanner, Notice, TextField } from '../../components/ui';
import { Link } from '../../lib/router';

/** E-mail and password; the store slug only for users of several stores. */
export function SignInPage({
  expired,
  onSignedIn,
}: {
  expired: boolean;
  onSignedIn: (session: Session) => Promise<void>;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [store, setStore] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const emailRef = useRef<HTMLInputElement>(null);
  const [signupOpen, setSignupOpen] = useState(false);

  useEffect(() => {
    document.title = 'Sign in · Emporium';
    emailRef.current?.focus();
    // SIGNUP=open: new merchants may create their own store.
    request<{ data: { open: boolean } }>('GET', '/api/admin/signup').then(
      (res) => setSignupOpen(res.data.open),
      () => setSignupOpen(false),
    );
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // A wrong password is 401 too: shown here, not taken for an ended session.
      const res = await request<{ data: Session }>(
        'POST',
        '/api/admin/auth/login',
        { email: email.trim(), password, ...(store.trim() ? { store: store.trim() } : {}) },
        { quietUnauthorized: true },
      );
      await onSignedIn(res.data);
    } catch (reason) {
      setError(reason);
      setBusy(false);
    }
  };

  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldError(field) : undefined);

  return (
    <div className="sign-in">
      <form className="card sign-in-card stack" onSubmit={submit} aria-labelledby="sign-in-title">
        <div>
          <p className="eyebrow">Emporium</p>
          <h1 id="sign-in-title">Sign in to your store</h1>
        </div>
        {expired ? <Notice tone="info">Your session ended. Please sign in again.</Notice> : null}
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
        <TextField
          label="Store (optional)"
          name="store"
          hint="The store's slug, if your account manages several stores."
          value={store}
          onChange={(e) => setStore(e.target.value)}
          error={fieldError('store')}
        />
        <Button type="submit" variant="primary" busy={busy}>
          Sign in
        </Button>
        {signupOpen ? (
          <p className="hint">
            New to Emporium? <Link to="/signup">Create a store</Link>
          </p>
        ) : null}
      </form>
    </div>
  );
}
