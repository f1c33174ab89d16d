import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from 'react';
import { api, request, setUnauthorizedHandler } from './api/client';
import type { Session, StoreSettings } from './api/types';
import { setDisplayTimeZone } from './lib/format';
import { type Access, allows, type Requirement } from './lib/permissions';
import { navigate } from './lib/router';
import { knownZone } from './lib/zoned-time';

interface SessionState {
  session: Session;
  store: StoreSettings;
  /** Re-reads the store settings (after the settings page saved them). */
  setStore: (store: StoreSettings) => void;
  signOut: () => Promise<void>;
  /** Signs in to another of the user's stores (POST /api/admin/auth/switch) and opens its overview. */
  switchStore: (slug: string) => Promise<void>;
}

const SessionContext = createContext<SessionState | undefined>(undefined);

export function useSession(): SessionState {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside a signed-in page');
  return value;
}

/** The signed-in user's role and permissions in this store. */
export function useAccess(): Access {
  const { session } = useSession();
  return { role: session.role, permissions: session.permissions };
}

/** `const can = useCan(); can({ scope: 'orders:write' })`: whether to show what needs it. */
export function useCan(): (need?: Requirement) => boolean {
  const access = useAccess();
  return (need) => allows(access, need);
}

/** The store's currency: every amount in the dashboard is shown in it. */
export function useCurrency(): string {
  return useSession().store.currency;
}

/** The store's time zone: dates are shown and entered in it, whatever the browser's zone. */
export function useTimeZone(): string {
  return knownZone(useSession().store.timezone);
}

type Status =
  | { kind: 'checking' }
  | { kind: 'signed-out'; expired: boolean }
  | { kind: 'signed-in'; session: Session; store: StoreSettings };

export async function loadSession(): Promise<{ session: Session; store: StoreSettings }> {
  const me = await request<{ data: Session }>('GET', '/api/admin/me', undefined, { quietUnauthorized: true });
  const store = await api.get<{ data: StoreSettings }>('/api/admin/store');
  return { session: me.data, store: store.data };
}

/**
 * Resolves the cookie session once at load (GET /api/admin/me); any later 401 (the session expired or
 * was signed out elsewhere) returns to the sign-in page.
 */
export function SessionGate({
  signedIn,
  signedOut,
}: {
  signedIn: ReactNode;
  signedOut: (props: { expired: boolean; onSignedIn: (session: Session) => Promise<void> }) => ReactNode;
}) {
  const [status, setStatus] = useState<Status>({ kind: 'checking' });

  useEffect(() => {
    loadSession().then(
      ({ session, store }) => setStatus({ kind: 'signed-in', session, store }),
      () => setStatus({ kind: 'signed-out', expired: false }),
    );
  }, []);

  useEffect(() => {
    setUnauthorizedHandler(() => setStatus({ kind: 'signed-out', expired: true }));
    return () => setUnauthorizedHandler(undefined);
  }, []);

  const onSignedIn = useCallback(async (session: Session) => {
    const store = await api.get<{ data: StoreSettings }>('/api/admin/store');
    setStatus({ kind: 'signed-in', session, store: store.data });
  }, []);

  const switchStore = useCallback(
    async (slug: string) => {
      const res = await api.post<{ data: Session }>('/api/admin/auth/switch', { store: slug });
      await onSignedIn(res.data);
      navigate('/');
    },
    [onSignedIn],
  );

  const signOut = useCallback(async () => {
    try {
      await api.post('/api/admin/auth/logout');
    } finally {
      setStatus({ kind: 'signed-out', expired: false });
    }
  }, []);

  if (status.kind === 'checking') {
    return (
      <div className="boot" role="status">
        <span className="spinner" aria-hidden="true" /> Loading the dashboard…
      </div>
    );
  }
  if (status.kind === 'signed-out') {
    setDisplayTimeZone(undefined);
    return <>{signedOut({ expired: status.expired, onSignedIn })}</>;
  }
  // Before the pages render: their dates are shown in the store's zone (a settings change re-renders).
  setDisplayTimeZone(knownZone(status.store.timezone));
  return (
    <SessionContext.Provider
      value={{
        session: status.session,
        store: status.store,
        setStore: (store) => setStatus({ ...status, store }),
        signOut,
        switchStore,
      }}
    >
      {signedIn}
    </SessionContext.Provider>
  );
}
