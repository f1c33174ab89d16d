import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from 'react';
import { api, request, setUnauthorizedHandler } from '../api/client';
import type { Operator } from './types';

interface OperatorSession {
  operator: Operator;
  signOut: () => Promise<void>;
}

const SessionContext = createContext<OperatorSession | undefined>(undefined);

export function useOperatorSession(): OperatorSession {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useOperatorSession outside a signed-in page');
  return value;
}

type Status =
  | { kind: 'checking' }
  | { kind: 'signed-out'; expired: boolean; signedOut: boolean }
  | { kind: 'signed-in'; operator: Operator };

/**
 * Resolves the `emporium_operator` cookie once at load (GET /api/operator/me); any later 401 (the
 * session expired or ended elsewhere) returns to the sign-in page, saying so.
 */
export function OperatorSessionGate({
  signedIn,
  signedOut,
}: {
  signedIn: ReactNode;
  signedOut: (props: {
    expired: boolean;
    signedOut: boolean;
    onSignedIn: (operator: Operator) => void;
  }) => ReactNode;
}) {
  const [status, setStatus] = useState<Status>({ kind: 'checking' });

  useEffect(() => {
    request<{ data: { operator: Operator } }>('GET', '/api/operator/me', undefined, {
      quietUnauthorized: true,
    }).then(
      (me) => setStatus({ kind: 'signed-in', operator: me.data.operator }),
      () => setStatus({ kind: 'signed-out', expired: false, signedOut: false }),
    );
  }, []);

  useEffect(() => {
    setUnauthorizedHandler(() => setStatus({ kind: 'signed-out', expired: true, signedOut: false }));
    return () => setUnauthorizedHandler(undefined);
  }, []);

  const onSignedIn = useCallback((operator: Operator) => setStatus({ kind: 'signed-in', operator }), []);

  const signOut = useCallback(async () => {
    try {
      await api.post('/api/operator/auth/logout');
    } finally {
      setStatus({ kind: 'signed-out', expired: false, signedOut: true });
    }
  }, []);

  if (status.kind === 'checking') {
    return (
      <div className="boot" role="status">
        <span className="spinner" aria-hidden="true" /> Loading the operator console…
      </div>
    );
  }
  if (status.kind === 'signed-out') {
    return <>{signedOut({ expired: status.expired, signedOut: status.signedOut, onSignedIn })}</>;
  }
  return (
    <SessionContext.Provider value={{ operator: status.operator, signOut }}>
      {signedIn}
    </SessionContext.Provider>
  );
}
