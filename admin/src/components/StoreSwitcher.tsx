import { useEffect, useRef, useState } from 'react';
import { useSession } from '../session';
import { ErrorBanner } from './ui';

/**
 * The top bar's store name; for a user of several stores, a menu of the others (contract §14: "can
 * switch"). Switching opens a new session on the chosen store, with the role and permissions the user
 * has there, and reloads the dashboard on its overview. Escape or a click elsewhere closes the menu.
 */
export function StoreSwitcher() {
  const { session, store, switchStore } = useSession();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<unknown>();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const others = session.stores.filter((s) => s.id !== session.store.id);

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    const onElsewhere = (event: Event) => {
      if (!(event.target instanceof Node && root.current?.contains(event.target))) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onElsewhere);
    document.addEventListener('focusin', onElsewhere);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onElsewhere);
      document.removeEventListener('focusin', onElsewhere);
    };
  }, [open]);

  if (others.length === 0) return <span className="brand-name">{store.name}</span>;

  const choose = async (slug: string) => {
    setBusy(slug);
    setError(undefined);
    try {
      await switchStore(slug);
    } catch (reason) {
      setError(reason);
      setBusy(undefined);
    }
  };

  return (
    <div className="store-switcher" ref={root}>
      <button
        type="button"
        ref={button}
        className="store-switcher-button"
        aria-expanded={open}
        aria-controls="store-menu"
        onClick={() => setOpen((o) => !o)}
      >
        <span className="brand-name">{store.name}</span>
        <span className="visually-hidden">: switch store</span>
        <span aria-hidden="true"> ▾</span>
      </button>
      {open ? (
        <div id="store-menu" className="store-menu">
          <ErrorBanner error={error} title="Could not switch" />
          <p className="hint">Your stores</p>
          <ul>
            {others.map((s) => (
              <li key={s.id}>
                <button
                  type="button"
                  className="store-menu-item"
                  aria-busy={busy === s.slug || undefined}
                  disabled={busy !== undefined}
                  onClick={() => void choose(s.slug)}
                >
                  <span className="store-menu-name">{s.name}</span>
                  <span className="hint">
                    {s.slug} · {s.role === 'owner' ? 'Owner' : 'Staff'}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
