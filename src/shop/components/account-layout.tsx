import type { InputHTMLAttributes, ReactNode } from 'react';
import { type ShopContext, shopHref } from '../shop-context.js';
import { Frame } from './frame.js';

export type AccountSection = 'orders' | 'addresses' | 'wishlist';

const SECTIONS: { key: AccountSection; label: string; path: string }[] = [
  { key: 'orders', label: 'Orders', path: '/account' },
  { key: 'addresses', label: 'Addresses', path: '/account/addresses' },
  { key: 'wishlist', label: 'Wishlist', path: '/account/wishlist' },
];

/** A message after a form: success as a polite status, a refusal as an alert (read out at once). */
export function Notice({ kind, children }: { kind: 'success' | 'error'; children: ReactNode }) {
  return kind === 'error' ? (
    <p className="notice notice--error" role="alert">
      {children}
    </p>
  ) : (
    <p className="notice notice--success" role="status">
      {children}
    </p>
  );
}

/**
 * The signed-in account's pages, in the shop's frame (never indexed): a heading, the sections as a
 * navigation (the current one marked) with the sign-out button, and the page's content.
 */
export function AccountLayout({
  shop,
  section,
  title,
  pageTitle = title,
  description,
  email,
  done,
  children,
}: {
  shop: ShopContext;
  section: AccountSection | undefined;
  /** The page's heading; `pageTitle` (the document's title) when that differs. */
  title: string;
  pageTitle?: string;
  description: string;
  email: string;
  done?: string;
  children: ReactNode;
}) {
  return (
    <Frame shop={shop} meta={{ title: pageTitle, description, noindex: true }}>
      <div className="account">
        <div className="account__head">
          <div>
            <h1>{title}</h1>
            <p className="muted account__email">{`Signed in as ${email}`}</p>
          </div>
          <form method="post" action={shopHref(shop, '/account/sign-out')}>
            <button type="submit" className="secondary">
              Sign out
            </button>
          </form>
        </div>
        <nav className="account__nav" aria-label="Account">
          <ul>
            {SECTIONS.map((s) => (
              <li key={s.key}>
                <a href={shopHref(shop, s.path)} aria-current={s.key === section ? 'page' : undefined}>
                  {s.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        {done ? <Notice kind="success">{done}</Notice> : null}
        <div className="account__body">{children}</div>
      </div>
    </Frame>
  );
}

const dateFormat = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' });

/** `2026-11-26T…` as `Nov 26, 2026`. */
export function formatDate(iso: string): string {
  return dateFormat.format(new Date(iso));
}

/** `on_hold` as `On hold`. */
export function statusLabel(status: string): string {
  const words = status.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A status as a coloured pill; the colour follows how things stand for the shopper. */
export function StatusPill({ status }: { status: string }) {
  const tone = ['completed', 'paid', 'fulfilled'].includes(status)
    ? 'good'
    : ['cancelled', 'refunded', 'failed', 'voided'].includes(status)
      ? 'bad'
      : 'neutral';
  return <span className={`pill pill--${tone}`}>{statusLabel(status)}</span>;
}

/** A labelled input of an account form (with an optional hint under it). */
export function Field({
  id,
  label,
  hint,
  ...input
}: { id: string; label: string; hint?: ReactNode } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} {...input} />
      {hint ? <span className="muted field__hint">{hint}</span> : null}
    </div>
  );
}

/** Facts as a description list: a label and its value (a pill, a date, an amount) each. */
export function Facts({
  className,
  facts,
}: {
  className: string;
  facts: { label: string; value: ReactNode; className?: string }[];
}) {
  return (
    <dl className={className}>
      {facts.map((fact) => (
        <div key={fact.label} className={fact.className}>
          <dt>{fact.label}</dt>
          <dd>{fact.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** One input of an account form: its name (the id is derived from it), label and attributes. */
export type FieldSpec = {
  name: string;
  label: string;
  hint?: ReactNode;
} & InputHTMLAttributes<HTMLInputElement>;

/**
 * An account form in a card: its heading, the refusal (if any), the fields (a nested list is one
 * row side by side), `children` after them and the submit button. Inputs are filled from `values`.
 */
export function AccountForm({
  shop,
  action,
  heading,
  idPrefix,
  error,
  intro,
  rows,
  values,
  submit,
  children,
}: {
  shop: ShopContext;
  action: string;
  heading: string;
  /** The heading's id is `{idPrefix}-form`; each input's `{idPrefix}-{name in kebab case}`. */
  idPrefix: string;
  error?: string;
  intro?: ReactNode;
  rows: (FieldSpec | FieldSpec[])[];
  values: Partial<Record<string, string>>;
  submit: string;
  children?: ReactNode;
}) {
  const field = ({ name, ...input }: FieldSpec) => (
    <Field
      key={name}
      id={`${idPrefix}-${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`}
      name={name}
      defaultValue={values[name]}
      {...input}
    />
  );
  return (
    <form className="card" method="post" action={shopHref(shop, action)} aria-labelledby={`${idPrefix}-form`}>
      <h2 id={`${idPrefix}-form`}>{heading}</h2>
      {error ? <Notice kind="error">{error}</Notice> : null}
      {intro}
      {rows.map((row) =>
        Array.isArray(row) ? (
          <div key={row.map((f) => f.name).join()} className="form-row">
            {row.map(field)}
          </div>
        ) : (
          field(row)
        ),
      )}
      {children}
      <button type="submit">{submit}</button>
    </form>
  );
}
