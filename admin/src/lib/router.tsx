import {
  type AnchorHTMLAttributes,
  createContext,
  type MouseEvent,
  useContext,
  useEffect,
  useState,
} from 'react';

/**
 * A small history router for the dashboard under /admin: paths are written without the base
 * ("/orders/123"), links are real anchors (open in a new tab works), and the server answers every
 * /admin/* path with index.html. The operator console sets its own base (/operator) before rendering.
 */
let BASE = '/admin';

export function setRouterBase(base: '/admin' | '/operator'): void {
  BASE = base;
}

function currentPath(): string {
  const path = window.location.pathname;
  const inner = path.startsWith(BASE) ? path.slice(BASE.length) : path;
  return inner === '' ? '/' : inner;
}

interface Location {
  path: string;
  search: URLSearchParams;
}

const RouterContext = createContext<Location>({ path: '/', search: new URLSearchParams() });

const listeners = new Set<() => void>();

export function navigate(to: string, options: { replace?: boolean } = {}) {
  const url = `${BASE}${to === '/' ? '/' : to}`;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
}

const read = (): Location => ({ path: currentPath(), search: new URLSearchParams(window.location.search) });

export function RouterProvider({ children }: { children: React.ReactNode }) {
  const [location, setLocation] = useState<Location>(read);
  useEffect(() => {
    const update = () => setLocation(read());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return <RouterContext.Provider value={location}>{children}</RouterContext.Provider>;
}

export function useLocation(): Location {
  return useContext(RouterContext);
}

export function Link({
  to,
  children,
  onClick,
  ...rest
}: { to: string } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
      return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={`${BASE}${to}`} onClick={handle} {...rest}>
      {children}
    </a>
  );
}
