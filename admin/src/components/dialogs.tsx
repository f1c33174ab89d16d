import {
  createContext,
  type FormEvent,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useRef,
  useState,
} from 'react';
import { Button } from './ui';

/**
 * A modal on the native <dialog>: the browser traps focus, Escape closes it, and focus returns to
 * what opened it. The browser's own return only happens on `close()`; most modals are unmounted by
 * their page instead (`{editing ? <Modal …/> : null}`), which left the focus on the page's body, so
 * the opener is remembered here and focused again however the modal goes away.
 */
export function Modal({
  open,
  title,
  onClose,
  children,
  wide,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
    }
    if (!open && dialog.open) {
      dialog.close();
      refocus(opener);
    }
  }, [open]);
  useEffect(() => () => refocus(opener), []);
  return (
    <dialog
      ref={ref}
      className={`modal ${wide ? 'modal-wide' : ''}`}
      aria-labelledby={open ? 'modal-title' : undefined}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      {open ? (
        <>
          <div className="modal-header">
            <h2 id="modal-title">{title}</h2>
            <button type="button" className="modal-close" aria-label="Close" onClick={onClose}>
              ×
            </button>
          </div>
          <div className="modal-body">{children}</div>
        </>
      ) : null}
    </dialog>
  );
}

/** Focus back on the element that opened a modal, if it is still on the page. */
function refocus(opener: { current: HTMLElement | null }): void {
  const element = opener.current;
  opener.current = null;
  if (element?.isConnected) element.focus();
}

/** A form inside a modal: Enter submits, the submit button shows progress. */
export function ModalForm({
  open,
  title,
  submitLabel,
  onClose,
  onSubmit,
  busy,
  danger,
  children,
  wide,
}: {
  open: boolean;
  title: string;
  submitLabel: string;
  onClose: () => void;
  onSubmit: () => void;
  busy?: boolean;
  danger?: boolean;
  children: ReactNode;
  wide?: boolean;
}) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <Modal open={open} title={title} onClose={onClose} wide={wide}>
      <form onSubmit={submit} className="stack">
        {children}
        <div className="form-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant={danger ? 'danger' : 'primary'} busy={busy}>
            {submitLabel}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

interface ConfirmRequest {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  danger?: boolean;
}

type Confirm = (request: ConfirmRequest) => Promise<boolean>;

const ConfirmContext = createContext<Confirm>(async () => false);

/** `const confirm = useConfirm(); if (await confirm({...})) …` before any destructive action. */
export function useConfirm(): Confirm {
  return useContext(ConfirmContext);
}

export function ConfirmProvider({ children }: { children: ReactNode }) {
  const [pending, setPending] = useState<(ConfirmRequest & { resolve: (ok: boolean) => void }) | undefined>();
  const confirm = useCallback<Confirm>(
    (request) => new Promise<boolean>((resolve) => setPending({ ...request, resolve })),
    [],
  );
  const answer = (ok: boolean) => {
    pending?.resolve(ok);
    setPending(undefined);
  };
  return (
    <ConfirmContext.Provider value={confirm}>
      {children}
      <Modal open={pending !== undefined} title={pending?.title ?? ''} onClose={() => answer(false)}>
        <div className="stack" data-testid="confirm-dialog">
          <div>{pending?.message}</div>
          <div className="form-actions">
            <Button onClick={() => answer(false)}>Cancel</Button>
            <Button variant={pending?.danger ? 'danger' : 'primary'} onClick={() => answer(true)} autoFocus>
              {pending?.confirmLabel}
            </Button>
          </div>
        </div>
      </Modal>
    </ConfirmContext.Provider>
  );
}
