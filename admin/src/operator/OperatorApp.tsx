import { createContext, type ReactNode, useContext, useEffect, useRef, useState } from 'react';
import { ConfirmProvider } from '../components/dialogs';
import { Empty } from '../components/ui';
import { matchPath } from '../lib/path';
import { Link, RouterProvider, useLocation } from '../lib/router';
import { SignInPage } from './pages/SignInPage';
import { StorePage } from './pages/StorePage';
import { StoresPage } from './pages/StoresPage';
import { OperatorSessionGate, useOperatorSession } from './session';

/**
 * A notice that outlives the page that raised it: "store deleted" is said on the list the store
 * page returns to. Shown once, in a live region the list always renders.
 */
const NoticeContext = createContext<{
  notice: string | undefined;
  setNotice: (text: string | undefined) => void;
}>({
  notice: undefined,
  setNotice: () => {},
});

export function useNotice() {
  return useContext(NoticeContext);
}

const ROUTES: { pattern: string; render: (params: Record<string, string>) => ReactNode }[] = [
  { pattern: '/', render: () => <StoresPage /> },
  { pattern: '/stores/:id', render: (p) => <StorePage id={p.id as string} /> },
];

function Routes() {
  const { path } = useLocation();
  for (const route of ROUTES) {
    const params = matchPath(route.pattern, path);
    if (params) return <>{route.render(params)}</>;
  }
  return (
    <Empty title="This page does not exist">
      <Link to="/">Back to the stores</Link>
    </Empty>
  );
}

function Shell() {
  const { operator, signOut } = useOperatorSession();
  const { path } = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const [notice, setNotice] = useState<string>();

  // After a navigation, focus moves to the new page's heading, as in the dashboard.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each navigation, which `path` marks.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const timer = window.setTimeout(() => main.current?.querySelector<HTMLElement>('h1')?.focus(), 0);
    return () => window.clearTimeout(timer);
  }, [path]);

  return (
    <NoticeContext.Provider value={{ notice, setNotice }}>
      <div className="shell operator-shell">
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <header className="topbar">
          <div className="brand">
            <Link to="/" className="brand-name operator-brand">
              Emporium <span className="operator-tag">Operator console</span>
            </Link>
          </div>
          <div className="topbar-user">
            <span className="user-email">{operator.email}</span>
            <button type="button" className="btn btn-link" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        </header>
        <main id="main" ref={main} className="content">
          <Routes />
        </main>
      </div>
    </NoticeContext.Provider>
  );
}

export function OperatorApp() {
  return (
    <RouterProvider>
      <ConfirmProvider>
        <OperatorSessionGate signedIn={<Shell />} signedOut={(props) => <SignInPage {...props} />} />
      </ConfirmProvider>
    </RouterProvider>
  );
}
