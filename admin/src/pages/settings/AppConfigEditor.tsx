import { useEffect, useState } from 'react';
import { api } from '../../api/client';
import type { StoreSettings } from '../../api/types';
import { Button, Card, ErrorBanner, Notice } from '../../components/ui';
import { useSession } from '../../session';
import { checkAppConfig } from './app-config';

const pretty = (value: unknown) => JSON.stringify(value, null, 2);
const EXAMPLE = pretty({ theme: { mode: 'light' }, home: { banners: [] }, features: { wishlist: true } });

/**
 * The JSON the mobile app reads from GET /api/storefront/{slug}/app-config, checked as you type. The
 * field holds what is saved (`{}` when nothing is), so what it shows is what the apps get; the example
 * is help beside it, never in it.
 */
export function AppConfigEditor() {
  const { store, setStore } = useSession();
  const [savedText, setSavedText] = useState(() => pretty(store.app_config));
  const [text, setText] = useState(savedText);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [justSaved, setJustSaved] = useState(false);
  const check = checkAppConfig(text);
  const nothingSaved = savedText === '{}';

  // The session's copy is from sign-in; an app's key may have saved since. Read from the dashboard's
  // own answer: the storefront's (the same config) may be kept 30 s by the browser's cache.
  useEffect(() => {
    const controller = new AbortController();
    const atSignIn = pretty(store.app_config);
    api.get<{ data: StoreSettings }>('/api/admin/store', undefined, controller.signal).then(
      (res) => {
        const current = pretty(res.data.app_config);
        setSavedText(current);
        setText((t) => (t === atSignIn ? current : t)); // never over what the merchant is typing
      },
      () => undefined, // the sign-in copy stays; a save answers with the saved config anyway
    );
    return () => controller.abort();
  }, [store.app_config]);

  const save = async () => {
    if (!check.ok) return;
    setBusy(true);
    setError(undefined);
    setJustSaved(false);
    try {
      const res = await api.put<{ data: Record<string, unknown> }>(
        `/api/storefront/${encodeURIComponent(store.slug)}/app-config`,
        check.value,
      );
      setStore({ ...store, app_config: res.data });
      setSavedText(pretty(res.data));
      setText(pretty(res.data));
      setJustSaved(true);
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title="Mobile app config">
      <form
        className="stack"
        aria-label="Mobile app config"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <p className="hint">
          Any JSON object (up to 64 KiB), served to your apps at{' '}
          <code>/api/storefront/{store.slug}/app-config</code>.{' '}
          {nothingSaved
            ? 'Nothing is saved yet: your apps get an empty object, {}.'
            : 'Below is what is saved.'}
        </p>
        <div className="app-config-layout">
          <div className="app-config-field">
            <label htmlFor="app-config" className="visually-hidden">
              App config JSON
            </label>
            <textarea
              id="app-config"
              className="code-editor"
              rows={14}
              spellCheck={false}
              value={text}
              aria-invalid={!check.ok || undefined}
              aria-describedby="app-config-status"
              onChange={(e) => {
                setText(e.target.value);
                setJustSaved(false);
              }}
              onKeyDown={(e) => {
                // Tab indents inside the editor; Escape then Tab leaves it (keyboard users are not trapped).
                if (
                  e.key === 'Tab' &&
                  !e.shiftKey &&
                  !e.altKey &&
                  !e.ctrlKey &&
                  !e.metaKey &&
                  e.currentTarget.dataset.escaped !== 'true'
                ) {
                  e.preventDefault();
                  const el = e.currentTarget;
                  const { selectionStart, selectionEnd } = el;
                  const next = `${text.slice(0, selectionStart)}  ${text.slice(selectionEnd)}`;
                  setText(next);
                  requestAnimationFrame(() => el.setSelectionRange(selectionStart + 2, selectionStart + 2));
                } else if (e.key === 'Escape') {
                  e.currentTarget.dataset.escaped = 'true';
                } else if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
                  e.preventDefault();
                  void save();
                } else {
                  e.currentTarget.dataset.escaped = 'false';
                }
              }}
            />
            <div id="app-config-status" className={check.ok ? 'hint text-good' : 'field-error'} role="status">
              {check.ok ? `Valid JSON object · ${check.bytes.toLocaleString()} bytes` : check.message}
            </div>
          </div>
          <aside className="app-config-example" aria-labelledby="app-config-example-title">
            <h3 id="app-config-example-title">Example</h3>
            <p className="hint">A shape your apps might read. Help only: it is not saved.</p>
            <pre>
              <code>{EXAMPLE}</code>
            </pre>
          </aside>
        </div>
        <p className="hint">Tab indents; press Escape, then Tab, to leave the editor. Ctrl+Enter saves.</p>
        <ErrorBanner error={error} title="Could not save the app config" />
        {justSaved ? <Notice>The app config was saved.</Notice> : null}
        <div className="form-actions">
          <Button
            disabled={!check.ok}
            onClick={() => check.ok && setText(JSON.stringify(check.value, null, 2))}
          >
            Format
          </Button>
          <Button onClick={() => setText(savedText)}>Revert</Button>
          <Button type="submit" variant="primary" busy={busy} disabled={!check.ok}>
            Save app config
          </Button>
        </div>
      </form>
    </Card>
  );
}
