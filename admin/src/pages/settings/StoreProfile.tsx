import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { ApiError, type Versioned, versionedRequest } from '../../api/client';
import type { StoreSettings } from '../../api/types';
import { StaleNotice } from '../../components/StaleNotice';
import {
  Button,
  Card,
  ErrorBanner,
  errorLink,
  InlineError,
  Notice,
  SelectField,
  TextField,
} from '../../components/ui';
import { StaleEdit, saveChanges } from '../../lib/concurrency';
import { CURRENCIES } from '../../lib/money';
import { useSession } from '../../session';
import { type ColorName, colorChanges, colorNames, HEX_COLOR, shownColor } from './colors';

function timeZones(current: string): string[] {
  let zones: string[] = [];
  try {
    zones = Intl.supportedValuesOf('timeZone');
  } catch {
    zones = [];
  }
  if (!zones.includes('UTC')) zones = ['UTC', ...zones];
  return zones.includes(current) ? zones : [current, ...zones];
}

/**
 * The colours as the shop draws them (src/shop/client/styles): the header in primary and buttons and
 * links in accent, both with white text; the page in background and text. Secondary is the apps' own.
 */
function ColorPreview({ c, name, logo }: { c: (key: ColorName) => string; name: string; logo: string }) {
  return (
    <div
      className="color-preview"
      aria-label="Preview of the storefront colours"
      role="img"
      style={{ background: c('background'), color: c('text') }}
    >
      <div className="color-preview-bar" style={{ background: c('primary'), color: '#fff' }}>
        {logo ? <img src={logo} alt="" /> : null}
        <strong>{name || 'Your store'}</strong>
      </div>
      <div className="color-preview-body">
        <p>
          New season, new arrivals. <span style={{ color: c('accent') }}>Shipping &amp; returns</span>
        </p>
        <span className="color-preview-button" style={{ background: c('accent'), color: '#fff' }}>
          Add to cart
        </span>{' '}
        <span className="color-preview-tag" style={{ background: c('secondary'), color: '#fff' }}>
          In the app
        </span>
      </div>
    </div>
  );
}

function draftOf(store: StoreSettings) {
  return {
    name: store.name,
    contactEmail: store.contact_email ?? '',
    logo: store.logo ?? '',
    // Only what the store has set: an empty field is drawn in the default and saved as nothing.
    colors: { ...store.colors } as Partial<Record<string, string>>,
    currency: store.currency,
    timezone: store.timezone,
    shipping: store.shipping_flat_rate,
    freeShipping: store.free_shipping_threshold ?? '',
    tax: store.tax_rate,
    lowStock: String(store.low_stock_threshold),
    domain: store.custom_domain ?? '',
  };
}
type Draft = ReturnType<typeof draftOf>;

/**
 * The body of a save with every field of the form (saveChanges sends only the changed ones); the
 * colours only as far as they differ from `savedColors` (colorChanges).
 */
function payloadOf(draft: Draft, savedColors: StoreSettings['colors'], names: readonly ColorName[]) {
  return {
    name: draft.name.trim(),
    contact_email: draft.contactEmail.trim() || null,
    logo: draft.logo.trim() || null,
    ...colorChanges(savedColors, draft.colors, names),
    currency: draft.currency.trim().toUpperCase(),
    timezone: draft.timezone,
    shipping_flat_rate: draft.shipping.trim() || '0',
    free_shipping_threshold: draft.freeShipping.trim() || null,
    tax_rate: draft.tax.trim() || '0',
    low_stock_threshold: Number(draft.lowStock || '0'),
    custom_domain: draft.domain.trim() || null,
  };
}

/** Name, logo, contact e-mail, colours (with a live preview), currency, time zone, shipping, tax, low stock, domain. */
export function StoreProfile() {
  const { store, setStore } = useSession();
  const defaults = store.default_colors;
  const colors = colorNames(defaults);
  const [draft, setDraft] = useState(() => draftOf(store));
  // What the form was loaded from, and its version: a save sends only what differs from it.
  const [loaded, setLoaded] = useState<Versioned<{ data: StoreSettings }>>({
    body: { data: store },
    etag: undefined,
  });
  const [dirty, setDirty] = useState(false);
  const [stale, setStale] = useState<StaleEdit<StoreSettings>>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  // The session's copy is from sign-in; orders may have come since, and the first one fixes the currency.
  const [hasOrders, setHasOrders] = useState(store.has_orders);
  // The session's copy is from sign-in: the form starts from the latest settings and their ETag.
  // biome-ignore lint/correctness/useExhaustiveDependencies: read once, when the page opens.
  useEffect(() => {
    const controller = new AbortController();
    versionedRequest<{ data: StoreSettings }>('GET', '/api/admin/store', undefined, {
      signal: controller.signal,
    }).then(
      (res) => {
        setHasOrders(res.body.data.has_orders);
        setLoaded(res);
        if (!dirty) setDraft(draftOf(res.body.data));
      },
      () => undefined, // the save answers 409 with the reason anyway
    );
    return () => controller.abort();
  }, []);
  const currencyFixed = hasOrders || store.has_orders;
  const zones = useMemo(() => timeZones(store.timezone), [store.timezone]);
  const set = (change: Partial<typeof draft>) => {
    setSaved(false);
    setDirty(true);
    setDraft((d) => ({ ...d, ...change }));
  };
  const shown = shownColor(draft.colors, defaults);
  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldError(field) : undefined);

  const showLatest = (latest: Versioned<{ data: StoreSettings }>) => {
    setLoaded(latest);
    setStore(latest.body.data);
    setDraft(draftOf(latest.body.data));
    setDirty(false);
    setStale(undefined);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const badColor = colors.find((k) => {
      const value = draft.colors[k]?.trim() ?? '';
      return value !== '' && !HEX_COLOR.test(value);
    });
    if (badColor) {
      setError(
        new ApiError(
          400,
          'invalid_request',
          `The ${badColor} colour must be a hex colour such as ${defaults[badColor]}, or empty for the default.`,
          [
            {
              field: `colors.${badColor}`,
              message: `must be a colour such as ${defaults[badColor]}, or empty for the default`,
            },
          ],
        ),
      );
      return;
    }
    setBusy(true);
    setError(undefined);
    setStale(undefined);
    try {
      const res = await saveChanges({
        path: '/api/admin/store',
        loaded,
        payloadOf: (settings: StoreSettings) => payloadOf(draftOf(settings), loaded.body.data.colors, colors),
        payload: payloadOf(draft, loaded.body.data.colors, colors),
      });
      showLatest(res);
      setSaved(true);
    } catch (reason) {
      if (reason instanceof StaleEdit) setStale(reason);
      else setError(reason);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title="Store profile">
      <form className="stack" onSubmit={submit} aria-label="Store profile">
        <ErrorBanner error={error} title="Could not save the settings" />
        {stale ? (
          <StaleNotice
            what="store's settings"
            fields={stale.fields}
            onReload={() => showLatest(stale.latest)}
          />
        ) : null}
        {saved ? <Notice>The settings were saved.</Notice> : null}
        <div className="row">
          <TextField
            label="Store name"
            required
            value={draft.name}
            onChange={(e) => set({ name: e.target.value })}
            error={fieldError('name')}
          />
          <TextField
            label="Logo URL"
            type="url"
            value={draft.logo}
            placeholder="https://…/logo.png"
            onChange={(e) => set({ logo: e.target.value })}
            error={fieldError('logo')}
          />
        </div>
        <TextField
          label="Contact e-mail"
          type="email"
          value={draft.contactEmail}
          placeholder="orders@example.com"
          autoCapitalize="none"
          spellCheck={false}
          onChange={(e) => set({ contactEmail: e.target.value })}
          error={fieldError('contact_email')}
          hint="Where buyers' replies and the store's notices go; empty for the owner's sign-in e-mail."
        />
        <fieldset className="colors">
          <legend>Colours</legend>
          <p className="hint">An empty colour is drawn in the default, the same in the shop and the apps.</p>
          <div className="color-grid">
            {colors.map((k) => {
              const label = k.charAt(0).toUpperCase() + k.slice(1);
              const value = draft.colors[k] ?? '';
              const setColor = (next: string) => set({ colors: { ...draft.colors, [k]: next } });
              return (
                <div className="color-field" key={k}>
                  <label htmlFor={`color-${k}`}>{label}</label>
                  <div className="color-inputs">
                    <input
                      type="color"
                      aria-label={`${k} colour picker`}
                      value={shown(k)}
                      onChange={(e) => setColor(e.target.value)}
                    />
                    <input
                      id={`color-${k}`}
                      className="input-narrow"
                      value={value}
                      placeholder={`default (${defaults[k]})`}
                      aria-invalid={(value.trim() !== '' && !HEX_COLOR.test(value.trim())) || undefined}
                      onChange={(e) => setColor(e.target.value)}
                      {...errorLink(`color-${k}`, fieldError(`colors.${k}`))}
                    />
                  </div>
                  {value !== '' ? (
                    <Button
                      variant="link"
                      aria-label={`Use default ${k} colour`}
                      onClick={() => setColor('')}
                    >
                      Use default
                    </Button>
                  ) : null}
                  <InlineError id={`color-${k}`} message={fieldError(`colors.${k}`)} />
                </div>
              );
            })}
          </div>
          <ColorPreview c={shown} name={draft.name} logo={draft.logo} />
        </fieldset>
        <div className="row">
          <Field3
            label="Currency"
            value={draft.currency}
            onChange={(currency) => set({ currency })}
            error={fieldError('currency')}
            disabled={currencyFixed}
            hint={
              currencyFixed
                ? `Fixed: the store has orders in ${store.currency}, and reports would show them in another currency`
                : 'ISO 4217 code; prices keep their amounts. It cannot change after the first order.'
            }
          />
          <SelectField
            label="Time zone"
            value={draft.timezone}
            onChange={(e) => set({ timezone: e.target.value })}
            options={zones.map((z) => ({ value: z, label: z }))}
            error={fieldError('timezone')}
            hint="Days of the analytics"
          />
        </div>
        <div className="row">
          <TextField
            label={`Flat shipping rate (${store.currency})`}
            inputMode="decimal"
            value={draft.shipping}
            onChange={(e) => set({ shipping: e.target.value })}
            error={fieldError('shipping_flat_rate')}
          />
          <TextField
            label={`Free shipping from (${store.currency})`}
            inputMode="decimal"
            placeholder="never"
            value={draft.freeShipping}
            onChange={(e) => set({ freeShipping: e.target.value })}
            error={fieldError('free_shipping_threshold')}
          />
        </div>
        <div className="row">
          <TextField
            label="Tax rate (%)"
            inputMode="decimal"
            value={draft.tax}
            onChange={(e) => set({ tax: e.target.value })}
            error={fieldError('tax_rate')}
          />
          <TextField
            label="Low-stock threshold"
            type="number"
            min={0}
            value={draft.lowStock}
            onChange={(e) => set({ lowStock: e.target.value })}
            error={fieldError('low_stock_threshold')}
            hint="Products at or below it are low on stock"
          />
        </div>
        <TextField
          label="Custom domain"
          value={draft.domain}
          placeholder="shop.example.com"
          autoCapitalize="none"
          spellCheck={false}
          onChange={(e) => set({ domain: e.target.value })}
          error={fieldError('custom_domain')}
          hint={`Point the domain's DNS at this server: the shop is then served at / on it (it stays at /shop/${store.slug}/ here). A hostname only, no https:// or path; empty for none.`}
        />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={busy}>
            Save settings
          </Button>
        </div>
      </form>
    </Card>
  );
}

function Field3({
  label,
  value,
  onChange,
  error,
  hint,
  disabled,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
  hint?: string;
  disabled?: boolean;
}) {
  return (
    <>
      <TextField
        label={label}
        list="currencies"
        maxLength={3}
        value={value}
        onChange={(e) => onChange(e.target.value.toUpperCase())}
        error={error}
        hint={hint}
        disabled={disabled}
      />
      <datalist id="currencies">
        {CURRENCIES.map((c) => (
          <option key={c} value={c} />
        ))}
      </datalist>
    </>
  );
}
