import { type FormEvent, useEffect, useState } from 'react';
import { type Versioned, versionedRequest } from '../../../api/client';
import type { StoreSettings } from '../../../api/types';
import { StaleNotice } from '../../../components/StaleNotice';
import { Button, Card, Checkbox, ErrorBanner, Notice } from '../../../components/ui';
import { StaleEdit, saveChanges } from '../../../lib/concurrency';
import { useSession } from '../../../session';

const payloadOf = (store: StoreSettings) => ({ prices_include_tax: store.prices_include_tax });

/**
 * The store's "prices include tax" (contract §12): catalogue prices and shipping rates then contain
 * the tax, as in the EU, and orders show the tax they contain. Saved alone (PATCH /api/admin/store
 * with If-Match), so it never overwrites a change made meanwhile on the general settings.
 */
export function PricesIncludeTax() {
  const { store, setStore } = useSession();
  const [loaded, setLoaded] = useState<Versioned<{ data: StoreSettings }>>({
    body: { data: store },
    etag: undefined,
  });
  const [checked, setChecked] = useState(store.prices_include_tax);
  const [dirty, setDirty] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [stale, setStale] = useState<StaleEdit<StoreSettings>>();
  const [saved, setSaved] = useState(false);

  // The session's copy is from sign-in: start from the latest settings and their ETag.
  // biome-ignore lint/correctness/useExhaustiveDependencies: read once, when the page opens.
  useEffect(() => {
    const controller = new AbortController();
    versionedRequest<{ data: StoreSettings }>('GET', '/api/admin/store', undefined, {
      signal: controller.signal,
    }).then(
      (latest) => {
        setLoaded(latest);
        if (!dirty) setChecked(latest.body.data.prices_include_tax);
      },
      () => undefined, // the save still works, without If-Match
    );
    return () => controller.abort();
  }, []);

  const showLatest = (latest: Versioned<{ data: StoreSettings }>) => {
    setLoaded(latest);
    setStore(latest.body.data);
    setChecked(latest.body.data.prices_include_tax);
    setDirty(false);
    setStale(undefined);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setStale(undefined);
    try {
      showLatest(
        await saveChanges({
          path: '/api/admin/store',
          loaded,
          payloadOf,
          payload: { prices_include_tax: checked },
        }),
      );
      setSaved(true);
    } catch (reason) {
      if (reason instanceof StaleEdit) setStale(reason);
      else setError(reason);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title="Prices and tax">
      <form className="stack" onSubmit={submit} aria-label="Prices and tax">
        <ErrorBanner error={error} title="Could not save the setting" />
        {stale ? (
          <StaleNotice
            what="store's settings"
            fields={stale.fields}
            onReload={() => showLatest(stale.latest)}
          />
        ) : null}
        {saved ? <Notice>The setting was saved.</Notice> : null}
        <Checkbox
          label="Prices include tax"
          hint="Catalogue prices and shipping rates contain the tax (as usual in the EU): the total stays the price, and orders show the tax it contains. Otherwise tax is added at checkout."
          checked={checked}
          onChange={(e) => {
            setChecked(e.target.checked);
            setDirty(true);
            setSaved(false);
          }}
        />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={busy}>
            Save
          </Button>
        </div>
      </form>
    </Card>
  );
}
