import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError, api, request } from '../../api/client';
import type { Session } from '../../api/types';
import { Button, ErrorBanner, Notice, TextField } from '../../components/ui';
import { Link } from '../../lib/router';

/** E-mail and password; then, for a user of several stores, the store to open (contract §14). */
export function SignInPage({
  expired,
  onSignedIn,
}: {
  expired: boolean;
  onSignedIn: (session: Session) => Promise<void>;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [choosing, setChoosing] = useState<Session>();
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
        { email: email.trim(), password },
        { quietUnauthorized: true },
      );
      if (res.data.stores.length > 1) {
        setChoosing(res.data);
        setBusy(false);
        return;
      }
      await onSignedIn(res.data);
    } catch (reason) {
      setError(reason);
      setBusy(false);
    }
  };

  const open = async (session: Session, slug: string) => {
    setBusy(true);
    setError(undefined);
    try {
      // The sign-in opened the first store; another one is a switch (a new session on it).
      const chosen =
        slug === session.store.slug
          ? session
          : (await api.post<{ data: Session }>('/api/admin/auth/switch', { store: slug })).data;
      await onSignedIn(chosen);
    } catch (reason) {
      setError(reason);
      setBusy(false);
    }
  };

  if (choosing) {
    return (
      <div className="sign-in">
        <div className="card sign-in-card stack">
          <div>
            <p className="eyebrow">Emporium</p>
            <h1 id="choose-title">Choose a store</h1>
          </div>
          <ErrorBanner error={error} title="Could not open the store" />
          <ul className="store-choices" aria-labelledby="choose-title">
            {choosing.stores.map((s) => (
              <li key={s.id}>
                <Button onClick={() => void open(choosing, s.slug)} disabled={busy}>
                  {s.name}
                  <span className="hint"> · {s.role === 'owner' ? 'Owner' : 'Staff'}</span>
                </Button>
              </li>
            ))}
          </ul>
        </div>
      </div>
    );
  }

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
