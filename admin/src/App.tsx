import { useEffect, useRef, useState } from 'react';
import type { Session } from './api/types';
import { ConfirmProvider } from './components/dialogs';
import { Empty } from './components/ui';
import { isCurrent, matchPath } from './lib/path';
import { Link, navigate, RouterProvider, useLocation } from './lib/router';
import { shopAddress } from './lib/shop-address';
import { CategoriesPage } from './pages/categories/CategoriesPage';
import { CustomerDetailPage } from './pages/customers/CustomerDetailPage';
import { CustomersPage } from './pages/customers/CustomersPage';
import { DiscountsPage } from './pages/discounts/DiscountsPage';
import { OrderDetailPage } from './pages/orders/OrderDetailPage';
import { OrdersPage } from './pages/orders/OrdersPage';
import { OverviewPage } from './pages/overview/OverviewPage';
import { ProductEditPage } from './pages/products/ProductEditPage';
import { ProductsPage } from './pages/products/ProductsPage';
import { NotificationsPage } from './pages/settings/notifications/NotificationsPage';
import { TemplateEditorPage } from './pages/settings/notifications/TemplateEditorPage';
import { SettingsPage } from './pages/settings/SettingsPage';
import { ShippingPage } from './pages/settings/shipping/ShippingPage';
import { TaxesPage } from './pages/settings/taxes/TaxesPage';
import { SignInPage } from './pages/sign-in/SignInPage';
import { SignupPage } from './pages/signup/SignupPage';
import { WebhookDetailPage } from './pages/webhooks/WebhookDetailPage';
import { WebhooksPage } from './pages/webhooks/WebhooksPage';
import { SessionGate, useSession } from './session';

const NAV = [
  { to: '/', label: 'Overview' },
  { to: '/orders', label: 'Orders' },
  { to: '/products', label: 'Products' },
  { to: '/categories', label: 'Categories' },
  { to: '/discounts', label: 'Discounts' },
  { to: '/customers', label: 'Customers' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/settings', label: 'Settings' },
];

const ROUTES: { pattern: string; render: (params: Record<string, string>) => React.ReactNode }[] = [
  { pattern: '/', render: () => <OverviewPage /> },
  { pattern: '/orders', render: () => <OrdersPage /> },
  { pattern: '/orders/:id', render: (p) => <OrderDetailPage id={p.id as string} /> },
  { pattern: '/products', render: () => <ProductsPage /> },
  { pattern: '/products/new', render: () => <ProductEditPage /> },
  { pattern: '/products/:id', render: (p) => <ProductEditPage id={p.id as string} /> },
  { pattern: '/categories', render: () => <CategoriesPage /> },
  { pattern: '/discounts', render: () => <DiscountsPage /> },
  { pattern: '/customers', render: () => <CustomersPage /> },
  { pattern: '/customers/:id', render: (p) => <CustomerDetailPage id={p.id as string} /> },
  { pattern: '/webhooks', render: () => <WebhooksPage /> },
  { pattern: '/webhooks/:id', render: (p) => <WebhookDetailPage id={p.id as string} /> },
  { pattern: '/settings', render: () => <SettingsPage /> },
  { pattern: '/settings/shipping', render: () => <ShippingPage /> },
  { pattern: '/settings/taxes', render: () => <TaxesPage /> },
  { pattern: '/settings/notifications', render: () => <NotificationsPage /> },
  { pattern: '/settings/notifications/:kind', render: (p) => <TemplateEditorPage kind={p.kind as string} /> },
  { pattern: '/signup', render: () => <Redirect to="/" /> },
];

/** A signed-in user who opens the sign-up page lands on the overview. */
function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

/** Signed out: the sign-up page at /signup, else the sign-in page. */
function SignedOut({
  expired,
  onSignedIn,
}: {
  expired: boolean;
  onSignedIn: (session: Session) => Promise<void>;
}) {
  const { path } = useLocation();
  if (path === '/signup') return <SignupPage onSignedIn={onSignedIn} />;
  return <SignInPage expired={expired} onSignedIn={onSignedIn} />;
}

function Routes() {
  const { path } = useLocation();
  for (const route of ROUTES) {
    const params = matchPath(route.pattern, path);
    if (params) return <>{route.render(params)}</>;
  }
  return (
    <Empty title="This page does not exist">
      <Link to="/">Back to the overview</Link>
    </Empty>
  );
}

function Shell() {
  const { session, store, signOut } = useSession();
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const main = useRef<HTMLElement>(null);
  const menuButton = useRef<HTMLButtonElement>(null);
  const nav = useRef<HTMLElement>(null);

  // The phone's menu lies over the page: Escape closes it (focus back on its button), and so does
  // focus or a tap anywhere else, so that it never covers the field being filled in.
  useEffect(() => {
    if (!menuOpen) return;
    const inMenu = (target: EventTarget | null) =>
      target instanceof Node && (nav.current?.contains(target) || menuButton.current?.contains(target));
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setMenuOpen(false);
      menuButton.current?.focus();
    };
    const onElsewhere = (event: Event) => {
      if (!inMenu(event.target)) setMenuOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('focusin', onElsewhere);
    document.addEventListener('pointerdown', onElsewhere);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('focusin', onElsewhere);
      document.removeEventListener('pointerdown', onElsewhere);
    };
  }, [menuOpen]);
  const first = useRef(true);

  // After a navigation, focus moves to the new page's heading (as a screen reader user expects).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each navigation, which `path` marks.
  useEffect(() => {
    setMenuOpen(false);
    if (first.current) {
      first.current = false;
      return;
    }
    const timer = window.setTimeout(() => main.current?.querySelector<HTMLElement>('h1')?.focus(), 0);
    return () => window.clearTimeout(timer);
  }, [path]);

  const current = NAV.find((item) => isCurrent(item.to, path))?.label ?? 'Dashboard';
  useEffect(() => {
    document.title = `${current} · ${store.name} · Emporium`;
  }, [current, store.name]);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          ref={menuButton}
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span aria-hidden="true">☰</span> Menu
        </button>
        <div className="brand">
          {store.logo ? <img src={store.logo} alt="" className="brand-logo" /> : null}
          <span className="brand-name">{store.name}</span>
        </div>
        <a className="btn btn-link view-shop" href={shopAddress(store)} target="_blank" rel="noopener">
          View shop<span className="visually-hidden"> (opens in a new tab)</span>
        </a>
        <div className="topbar-user">
          <span className="user-email">{session.user.email}</span>
          <button type="button" className="btn btn-link" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <nav id="nav" ref={nav} className={`sidebar ${menuOpen ? 'open' : ''}`} aria-label="Dashboard">
        <ul>
          {NAV.map((item) => (
            <li key={item.to}>
              <Link to={item.to} aria-current={isCurrent(item.to, path) ? 'page' : undefined}>
                {item.label}
              </Link>
            </li>
          ))}
          {/* The top bar's shop link, where a phone's narrow top bar has no room for it. */}
          <li className="nav-shop">
            <a href={shopAddress(store)} target="_blank" rel="noopener">
              View shop<span className="visually-hidden"> (opens in a new tab)</span>
            </a>
          </li>
        </ul>
      </nav>
      <main id="main" ref={main} className="content">
        <Routes />
      </main>
    </div>
  );
}

export function App() {
  return (
    <RouterProvider>
      <ConfirmProvider>
        <SessionGate
          signedIn={<Shell />}
          signedOut={({ expired, onSignedIn }) => <SignedOut expired={expired} onSignedIn={onSignedIn} />}
        />
      </ConfirmProvider>
    </RouterProvider>
  );
}
