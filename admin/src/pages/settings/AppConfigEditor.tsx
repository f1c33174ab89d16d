import { useEffect, useState } from 'react';
import { type Versioned, versionedRequest } from '../../api/client';
import { StaleNotice } from '../../components/StaleNotice';
import { Button, Card, ErrorBanner, Notice } from '../../components/ui';
import { replaceDocument, StaleEdit } from '../../lib/concurrency';
import { useSession } from '../../session';
import { checkAppConfig } from './app-config';

const pretty = (value: unknown) => JSON.stringify(value, null, 2);
const EXAMPLE = pretty({ theme: { mode: 'light' }, home: { banners: [] }, features: { wishlist: true } });

type Config = Record<string, unknown>;

/**
 * The JSON the mobile app reads from GET /api/storefront/{slug}/app-config, checked as you type. The
 * field holds what is saved (`{}` when nothing is), so what it shows is what the apps get; the example
 * is help beside it, never in it. A save sends the whole document with the ETag of the one loaded
 * (If-Match): when someone else (another page, an app's key) saved meanwhile, nothing is saved and
 * StaleNotice names the top-level keys that changed.
 */
export function AppConfigEditor() {
  const { store, setStore } = useSession();
  const path = `/api/storefront/${encodeURIComponent(store.slug)}/app-config`;
  // What the field was loaded from and its version; the sign-in copy has none until it is read.
  const [loaded, setLoaded] = useState<Versioned<{ data: Config }>>(() => ({
    body: { data: store.app_config },
    etag: undefined,
  }));
  const savedText = pretty(loaded.body.data);
  const [text, setText] = useState(savedText);
  const [stale, setStale] = useState<StaleEdit<Config>>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [justSaved, setJustSaved] = useState(false);
  const check = checkAppConfig(text);
  const nothingSaved = savedText === '{}';

  // The session's copy is from sign-in; an app's key may have saved since. The storefront's answer
  // carries the config's version (its ETag); it is public and may be kept 30 s by the browser's
  // cache, so it is revalidated ('no-cache'), never taken from the cache as it is.
  // biome-ignore lint/correctness/useExhaustiveDependencies: read once per store, when the page opens.
  useEffect(() => {
    const controller = new AbortController();
    const atSignIn = pretty(store.app_config);
    versionedRequest<{ data: Config }>('GET', path, undefined, {
      signal: controller.signal,
      cache: 'no-cache',
    }).then(
      (res) => {
        setLoaded(res);
        const current = pretty(res.body.data);
        setText((t) => (t === atSignIn ? current : t)); // never over what the merchant is typing
      },
      () => undefined, // the sign-in copy stays, saved without If-Match as before
    );
    return () => controller.abort();
  }, [path]);

  const showLatest = (latest: Versioned<{ data: Config }>) => {
    setLoaded(latest);
    setStore({ ...store, app_config: latest.body.data });
    setText(pretty(latest.body.data));
    setStale(undefined);
  };

  const save = async () => {
    if (!check.ok) return;
    setBusy(true);
    setError(undefined);
    setJustSaved(false);
    setStale(undefined);
    try {
      // A whole document: If-Match alone, no part of it sent on its own (replaceDocument).
      showLatest(
        await replaceDocument({ path, loaded, describe: (config: Config) => config, body: check.value }),
      );
      setJustSaved(true);
    } catch (reason) {
      if (reason instanceof StaleEdit) setStale(reason as StaleEdit<Config>);
      else setError(reason);
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
        {stale ? (
          <StaleNotice what="app config" fields={stale.fields} onReload={() => showLatest(stale.latest)} />
        ) : null}
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
