import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError, api } from '../../api/client';
import { Modal, ModalForm } from '../../components/dialogs';
import { Button, ErrorBanner, TextAreaField, TextField } from '../../components/ui';
import { navigate } from '../../lib/router';
import { useNotice } from '../OperatorApp';
import type { OperatorStore } from '../types';

/** The API's bound on a suspension's reason (1–500 characters). */
const REASON_MAX = 500;

/** Suspend with a reason, which the store's own users and clients are told. */
export function SuspendDialog({
  store,
  open,
  onClose,
  onSuspended,
}: {
  store: Pick<OperatorStore, 'id' | 'name'>;
  open: boolean;
  onClose: () => void;
  onSuspended: (item: OperatorStore) => void;
}) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [missing, setMissing] = useState(false);
  const field = useRef<HTMLTextAreaElement>(null);

  // After the modal's own effect has opened it (a child's effect runs first): the reason takes the
  // focus, not the close button the browser would pick.
  useEffect(() => {
    if (!open) return;
    setReason('');
    setError(undefined);
    setMissing(false);
    field.current?.focus();
  }, [open]);

  const submit = async () => {
    if (!reason.trim()) {
      setMissing(true);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const res = await api.post<{ data: OperatorStore }>(
        `/api/operator/stores/${encodeURIComponent(store.id)}/suspend`,
        {
          reason: reason.trim(),
        },
      );
      onSuspended(res.data);
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };

  const fieldError =
    (missing ? 'Give the reason: the store’s owner and staff are shown it.' : undefined) ??
    (error instanceof ApiError ? error.fieldError('reason') : undefined);

  return (
    <ModalForm
      open={open}
      title={`Suspend ${store.name}`}
      submitLabel="Suspend store"
      danger
      busy={busy}
      onClose={onClose}
      onSubmit={() => void submit()}
    >
      <p>
        Its shop shows a “closed” page, its checkout, cart and storefront answer 503, its API keys and
        dashboard sessions are refused and its webhooks wait. Nothing is deleted.
      </p>
      <ErrorBanner error={error} title="Could not suspend the store" />
      <TextAreaField
        label="Reason"
        hint={`Required, at most ${REASON_MAX} characters.`}
        name="reason"
        rows={3}
        // Our own message, in the page's style, rather than the browser's bubble.
        aria-required="true"
        maxLength={REASON_MAX}
        ref={field}
        value={reason}
        onChange={(e) => {
          setReason(e.target.value);
          setMissing(false);
        }}
        error={fieldError}
      />
    </ModalForm>
  );
}

/**
 * Deletion asks for the slug typed out: the button stays disabled until it matches, so a store is
 * never deleted by a slip of the mouse. Then back to the list, which says so.
 */
export function DeleteStoreDialog({
  store,
  open,
  onClose,
}: {
  store: Pick<OperatorStore, 'id' | 'name' | 'slug'>;
  open: boolean;
  onClose: () => void;
}) {
  const { setNotice } = useNotice();
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const matches = typed.trim() === store.slug;
  const field = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!open) return;
    setTyped('');
    setError(undefined);
    field.current?.focus();
  }, [open]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!matches) return;
    setBusy(true);
    setError(undefined);
    try {
      await api.delete(`/api/operator/stores/${encodeURIComponent(store.id)}`);
      setNotice(
        `${store.name} (${store.slug}) is being deleted: its data and media are removed in the background.`,
      );
      navigate('/');
    } catch (reason) {
      setError(reason);
      setBusy(false);
    }
  };

  return (
    <Modal open={open} title={`Delete ${store.name}`} onClose={onClose}>
      <form className="stack" onSubmit={submit}>
        <p>
          The store, its products, orders, customers, media and everything else it holds are removed for good.
          Its owner and staff lose access at once.
        </p>
        <ErrorBanner error={error} title="Could not delete the store" />
        <TextField
          label={`Type the store's slug, ${store.slug}, to confirm`}
          name="confirm-slug"
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          ref={field}
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
        />
        <div className="form-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="danger" busy={busy} disabled={!matches}>
            Delete this store
          </Button>
        </div>
      </form>
    </Modal>
  );
}
