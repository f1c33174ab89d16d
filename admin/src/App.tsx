import { useEffect, useRef, useState } from 'react';
import type { Session } from './api/types';
import { Refused } from './components/access';
import { ConfirmProvider } from './components/dialogs';
import { StoreSwitcher } from './components/StoreSwitcher';
import { Empty } from './components/ui';
import { isCurrent, matchPath } from './lib/path';
import type { Requirement } from './lib/permissions';
import { Link, navigate, RouterProvider, useLocation } from './lib/router';
import { shopAddress } from './lib/shop-address';
import { ActivityPage } from './pages/activity/ActivityPage';
import { CategoriesPage } from './pages/categories/CategoriesPage';
import { CustomerDetailPage } from './pages/customers/CustomerDetailPage';
import { CustomersPage } from './pages/customers/CustomersPage';
import { DiscountsPage } from './pages/discounts/DiscountsPage';
import { AcceptInvitePage } from './pages/invite/AcceptInvitePage';
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
import { StaffPage } from './pages/staff/StaffPage';
import { WebhookDetailPage } from './pages/webhooks/WebhookDetailPage';
import { WebhooksPage } from './pages/webhooks/WebhooksPage';
import { SessionGate, useCan, useSession } from './session';

const NAV = [
  { to: '/', label: 'Overview' },
  { to: '/orders', label: 'Orders' },
  { to: '/products', label: 'Products' },
  { to: '/categories', label: 'Categories' },
  { to: '/discounts', label: 'Discounts' },
  { to: '/customers', label: 'Customers' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/settings', label: 'Settings' },
  { to: '/activity', label: 'Activity' },
];

const OWNER: Requirement = { owner: true };
const read = (resource: string): Requirement => ({ scope: `${resource}:read` });

/** Each page with what it needs (contract §14): the navigation hides the rest, and Routes refuses it. */
const ROUTES: {
  pattern: string;
  need?: Requirement;
  render: (params: Record<string, string>) => React.ReactNode;
}[] = [
  { pattern: '/', need: read('analytics'), render: () => <OverviewPage /> },
  { pattern: '/orders', need: read('orders'), render: () => <OrdersPage /> },
  { pattern: '/orders/:id', need: read('orders'), render: (p) => <OrderDetailPage id={p.id as string} /> },
  { pattern: '/products', need: read('products'), render: () => <ProductsPage /> },
  { pattern: '/products/new', need: { scope: 'products:write' }, render: () => <ProductEditPage /> },
  {
    pattern: '/products/:id',
    need: read('products'),
    render: (p) => <ProductEditPage id={p.id as string} />,
  },
  { pattern: '/categories', need: read('products'), render: () => <CategoriesPage /> },
  { pattern: '/discounts', need: read('discounts'), render: () => <DiscountsPage /> },
  { pattern: '/customers', need: read('customers'), render: () => <CustomersPage /> },
  {
    pattern: '/customers/:id',
    need: read('customers'),
    render: (p) => <CustomerDetailPage id={p.id as string} />,
  },
  { pattern: '/webhooks', need: read('webhooks'), render: () => <WebhooksPage /> },
  {
    pattern: '/webhooks/:id',
    need: read('webhooks'),
    render: (p) => <WebhookDetailPage id={p.id as string} />,
  },
  { pattern: '/settings', need: read('settings'), render: () => <SettingsPage /> },
  { pattern: '/settings/shipping', need: read('settings'), render: () => <ShippingPage /> },
  { pattern: '/settings/taxes', need: read('settings'), render: () => <TaxesPage /> },
  { pattern: '/settings/notifications', need: read('settings'), render: () => <NotificationsPage /> },
  {
    pattern: '/settings/notifications/:kind',
    need: read('settings'),
    render: (p) => <TemplateEditorPage kind={p.kind as string} />,
  },
  { pattern: '/settings/staff', need: OWNER, render: () => <StaffPage /> },
  { pattern: '/activity', need: OWNER, render: () => <ActivityPage /> },
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

/** What the page at `path` needs (the navigation shows an entry only to whom its page opens). */
function needOf(path: string): Requirement | undefined {
  return ROUTES.find((route) => matchPath(route.pattern, path))?.need;
}

function Routes() {
  const { path } = useLocation();
  const can = useCan();
  for (const route of ROUTES) {
    const params = matchPath(route.pattern, path);
    if (!params) continue;
    if (route.need && !can(route.need)) {
      const title = NAV.find((item) => isCurrent(item.to, path))?.label ?? 'Dashboard';
      const open = NAV.filter((item) => can(needOf(item.to)));
      return <Refused title={title} need={route.need} open={open} />;
    }
    return <>{route.render(params)}</>;
  }
  return (
    <Empty title="This page does not exist">
      <Link to="/">Back to the overview</Link>
    </Empty>
  );
}

function Shell() {
  const { session, store, signOut } = useSession();
  const can = useCan();
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
          <StoreSwitcher />
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
          {NAV.filter((item) => can(needOf(item.to))).map((item) => (
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

/** The pages open without a session (an invitation's link), else the signed-in dashboard. */
function Gate() {
  const { path } = useLocation();
  const invite = matchPath('/invite/:token', path);
  if (invite) {
    return (
      <AcceptInvitePage token={invite.token as string} onAccepted={() => navigate('/', { replace: true })} />
    );
  }
  return (
    <SessionGate
      signedIn={<Shell />}
      signedOut={({ expired, onSignedIn }) => <SignedOut expired={expired} onSignedIn={onSignedIn} />}
    />
  );
}

export function App() {
  return (
    <RouterProvider>
      <ConfirmProvider>
        <Gate />
      </ConfirmProvider>
    </RouterProvider>
  );
}
