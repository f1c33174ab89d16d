import { type FormEvent, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, request } from '../../api/client';
import type { Session } from '../../api/types';
import { Button, ErrorBanner, Notice, SelectField, TextField } from '../../components/ui';
import { CURRENCIES } from '../../lib/money';
import { Link, navigate } from '../../lib/router';

function timeZones(): string[] {
  let zones: string[] = [];
  try {
    zones = Intl.supportedValuesOf('timeZone');
  } catch {
    zones = [];
  }
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
}

/** The browser's own zone, when the server will know it; else UTC. */
function browserZone(zones: string[]): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return zone && zones.includes(zone) ? zone : 'UTC';
}

interface Details {
  email: string;
  password: string;
  store_name: string;
  currency: string;
  timezone: string;
}

/**
 * Self-service sign-up (SIGNUP=open): the store's details, then the 6-digit code mailed to the
 * address; the code creates the store and signs in, and the dashboard opens on its checklist.
 */
export function SignupPage({ onSignedIn }: { onSignedIn: (session: Session) => Promise<void> }) {
  const zones = useMemo(timeZones, []);
  const [details, setDetails] = useState<Details>(() => ({
    email: '',
    password: '',
    store_name: '',
    currency: 'USD',
    timezone: browserZone(zones),
  }));
  const [step, setStep] = useState<'details' | 'code'>('details');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const firstField = useRef<HTMLInputElement>(null);
  const codeField = useRef<HTMLInputElement>(null);

  useEffect(() => {
    document.title = step === 'details' ? 'Create your store · Emporium' : 'Enter your code · Emporium';
    (step === 'details' ? firstField : codeField).current?.focus();
  }, [step]);

  const set = (key: keyof Details) => (value: string) => setDetails((d) => ({ ...d, [key]: value }));
  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldError(field) : undefined);

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };

  const sendDetails = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await request('POST', '/api/admin/signup', {
        ...details,
        email: details.email.trim(),
        store_name: details.store_name.trim(),
      });
      setCode('');
      setStep('code');
    });
  };

  const sendCode = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await request(
        'POST',
        '/api/admin/signup/verify',
        { email: details.email.trim(), code: code.trim() },
        // A wrong code is 401 too: shown here, not taken for an ended session.
        { quietUnauthorized: true },
      );
      const me = await request<{ data: Session }>('GET', '/api/admin/me');
      navigate('/', { replace: true });
      await onSignedIn(me.data);
    });
  };

  if (step === 'code') {
    return (
      <div className="sign-in">
        <form className="card sign-in-card stack" onSubmit={sendCode} aria-labelledby="signup-title">
          <div>
            <p className="eyebrow">Emporium</p>
            <h1 id="signup-title">Check your e-mail</h1>
          </div>
          <p>
            We sent a 6-digit code to <strong>{details.email.trim()}</strong>. It is valid for 15 minutes.
          </p>
          <ErrorBanner error={error} title="Could not create the store" />
          <TextField
            ref={codeField}
            label="Code"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            maxLength={6}
            required
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
            error={fieldError('code')}
          />
          <Button type="submit" variant="primary" busy={busy}>
            Create my store
          </Button>
          <button type="button" className="btn btn-link" onClick={() => setStep('details')}>
            Change my details or send a new code
          </button>
        </form>
      </div>
    );
  }

  return (
    <div className="sign-in">
      <form className="card sign-in-card stack" onSubmit={sendDetails} aria-labelledby="signup-title">
        <div>
          <p className="eyebrow">Emporium</p>
          <h1 id="signup-title">Create your store</h1>
        </div>
        <ErrorBanner error={error} title="Could not sign up" />
        {error instanceof ApiError && error.status === 403 ? (
          <Notice tone="info">Ask the platform's operator for a store, or sign in if you have one.</Notice>
        ) : null}
        <TextField
          ref={firstField}
          label="E-mail"
          type="email"
          name="email"
          autoComplete="email"
          required
          maxLength={254}
          value={details.email}
          onChange={(e) => set('email')(e.target.value)}
          error={fieldError('email')}
        />
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete="new-password"
          required
          minLength={8}
          maxLength={1000}
          hint="At least 8 characters."
          value={details.password}
          onChange={(e) => set('password')(e.target.value)}
          error={fieldError('password')}
        />
        <TextField
          label="Store name"
          name="store_name"
          autoComplete="organization"
          required
          maxLength={100}
          value={details.store_name}
          onChange={(e) => set('store_name')(e.target.value)}
          error={fieldError('store_name')}
        />
        <SelectField
          label="Currency"
          name="currency"
          hint="Prices and reports are in this currency; it is fixed once the store has orders."
          options={CURRENCIES.map((c) => ({ value: c, label: c }))}
          value={details.currency}
          onChange={(e) => set('currency')(e.target.value)}
          error={fieldError('currency')}
        />
        <SelectField
          label="Time zone"
          name="timezone"
          options={zones.map((z) => ({ value: z, label: z }))}
          value={details.timezone}
          onChange={(e) => set('timezone')(e.target.value)}
          error={fieldError('timezone')}
        />
        <Button type="submit" variant="primary" busy={busy}>
          Continue
        </Button>
        <p className="hint">
          Already have a store? <Link to="/">Sign in</Link>
        </p>
      </form>
    </div>
  );
}
