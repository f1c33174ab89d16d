import {
  type ButtonHTMLAttributes,
  type ComponentProps,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  useId,
  useState,
} from 'react';
import type { Pagination as PaginationMeta } from '../api/client';
import { ApiError, messageOf } from '../api/client';
import { humanise } from '../lib/format';

export function Button({
  variant = 'secondary',
  busy,
  children,
  disabled,
  type = 'button',
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: 'primary' | 'secondary' | 'danger' | 'link';
  busy?: boolean;
}) {
  return (
    <button
      type={type}
      className={`btn btn-${variant}`}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
      {...rest}
    >
      {busy ? <span className="spinner" aria-hidden="true" /> : null}
      {children}
    </button>
  );
}

interface FieldProps {
  label: string;
  hint?: ReactNode;
  error?: string;
  children: (props: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }) => ReactNode;
  className?: string;
}

/** A labelled control with its hint and its error message, linked for screen readers. */
export function Field({ label, hint, error, children, className }: FieldProps) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className={`field ${error ? 'field-invalid' : ''} ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        ...(error ? { 'aria-invalid': true } : {}),
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
      })}
      {hint ? (
        <div className="hint" id={`${id}-hint`}>
          {hint}
        </div>
      ) : null}
      {error ? (
        <div className="field-error" id={`${id}-error`}>
          {error}
        </div>
      ) : null}
    </div>
  );
}

export function TextField({
  label,
  hint,
  error,
  className,
  ...input
}: { label: string; hint?: ReactNode; error?: string } & ComponentProps<'input'>) {
  return (
    <Field label={label} hint={hint} error={error} className={className}>
      {(props) => <input {...props} {...input} />}
    </Field>
  );
}

export function TextAreaField({
  label,
  hint,
  error,
  className,
  ...input
}: { label: string; hint?: ReactNode; error?: string } & ComponentProps<'textarea'>) {
  return (
    <Field label={label} hint={hint} error={error} className={className}>
      {(props) => <textarea {...props} {...input} />}
    </Field>
  );
}

export function SelectField({
  label,
  hint,
  error,
  options,
  className,
  ...select
}: {
  label: string;
  hint?: ReactNode;
  error?: string;
  options: { value: string; label: string }[];
} & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <Field label={label} hint={hint} error={error} className={className}>
      {(props) => (
        <select {...props} {...select}>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function Checkbox({
  label,
  hint,
  ...input
}: { label: ReactNode; hint?: ReactNode } & Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>) {
  const id = useId();
  return (
    <div className="checkbox">
      <input type="checkbox" id={id} {...input} />
      <label htmlFor={id}>
        {label}
        {hint ? <span className="hint"> {hint}</span> : null}
      </label>
    </div>
  );
}

/**
 * A control's error where no Field wraps it (a table cell, a colour pair): spread `errorLink(id, …)`
 * on the control and put `<InlineError id={id} …/>` after it.
 */
export function errorLink(id: string, message: string | undefined) {
  return message ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-error` } : {};
}

export function InlineError({ id, message }: { id: string; message: string | undefined }) {
  return message ? (
    <div className="field-error" id={`${id}-error`}>
      {message}
    </div>
  ) : null;
}

/** The API's error, readable: its message, and a list of field errors when it has some. */
export function ErrorBanner({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const details = error instanceof ApiError ? error.details.filter((d) => d.field && d.field !== 'body') : [];
  const message = error instanceof ApiError ? error.message : messageOf(error);
  return (
    <div className="banner banner-error" role="alert">
      <strong>{title ?? 'Something went wrong'}</strong>
      <p>{message}</p>
      {details.length > 0 ? (
        <ul>
          {details.map((d) => (
            <li key={`${d.field}:${d.message}`}>
              <code>{d.field}</code> {d.message}
            </li>
          ))}
        </ul>
      ) : null}
      {error instanceof ApiError && error.requestId && error.status >= 500 ? (
        <p className="hint">Request id: {error.requestId}</p>
      ) : null}
    </div>
  );
}

export function Notice({
  children,
  tone = 'success',
}: {
  children: ReactNode;
  tone?: 'success' | 'info' | 'warning';
}) {
  return (
    <div className={`banner banner-${tone}`} role="status">
      {children}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children ? <div className="empty-body">{children}</div> : null}
    </div>
  );
}

const BADGE_TONES: Record<string, string> = {
  paid: 'good',
  succeeded: 'good',
  completed: 'good',
  fulfilled: 'good',
  active: 'good',
  in_stock: 'good',
  processing: 'info',
  pending: 'warn',
  unpaid: 'warn',
  partially_paid: 'warn',
  on_hold: 'warn',
  low_stock: 'warn',
  draft: 'muted',
  unfulfilled: 'muted',
  archived: 'muted',
  inactive: 'muted',
  revoked: 'muted',
  cancelled: 'bad',
  refund_due: 'bad',
  failed: 'bad',
  disabled: 'bad',
  out_of_stock: 'bad',
  suspended: 'bad',
};

export function Badge({ value, label }: { value: string; label?: string }) {
  return <span className={`badge badge-${BADGE_TONES[value] ?? 'muted'}`}>{label ?? humanise(value)}</span>;
}

export function Pagination({
  meta,
  onPage,
}: {
  meta: PaginationMeta | undefined;
  onPage: (page: number) => void;
}) {
  if (!meta || meta.total_pages <= 1) return null;
  return (
    <nav className="pagination" aria-label="Pages">
      <Button onClick={() => onPage(meta.page - 1)} disabled={!meta.has_prev}>
        Previous
      </Button>
      <span>
        Page {meta.page} of {meta.total_pages} · {meta.total} in all
      </span>
      <Button onClick={() => onPage(meta.page + 1)} disabled={!meta.has_next}>
        Next
      </Button>
    </nav>
  );
}

export function PageHeader({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <header className="page-header">
      <div>
        <h1 tabIndex={-1}>{title}</h1>
        {children}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </header>
  );
}

export function Card({
  title,
  actions,
  children,
  className,
}: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section className={`card ${className ?? ''}`}>
      {title || actions ? (
        <div className="card-header">
          {title ? <h2>{title}</h2> : <span />}
          {actions ? <div className="card-actions">{actions}</div> : null}
        </div>
      ) : null}
      {children}
    </section>
  );
}

/** Copies text to the clipboard (where the page may), with a visible confirmation. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = () => {
    if (!navigator.clipboard) {
      setState('failed');
      return;
    }
    navigator.clipboard.writeText(text).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  };
  return (
    <Button onClick={copy} aria-live="polite">
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy' : label}
    </Button>
  );
}
