import { useEffect, useRef, useState } from 'react';
import { versionedRequest } from '../../api/client';
import type { EditItemsResult, Order } from '../../api/types';
import type { EditForm } from './edit-preview';

/** Quiet time after the last keystroke before the server is asked. */
export const PREVIEW_DELAY_MS = 300;

export interface EditPreviewState {
  /** The latest answer, and the body (as JSON) it answers: it may be older than the form. */
  result?: EditItemsResult;
  resultOf?: string;
  /** The form's rows behind that body (to put the answer's line totals on them). */
  resultRows?: EditForm['rows'];
  /** The latest refusal, and the body it refused. */
  error?: unknown;
  errorOf?: string;
  /** A preview of the form as it is now is waited for. */
  updating: boolean;
  /** The form's body as JSON ('' when it is not ready to be previewed). */
  current: string;
}

/**
 * Asks the server to preview the form's edit (`dry_run: true`, on the version being edited, so a
 * changed order answers 412 here too) once the merchant stops typing; earlier questions are
 * abandoned. Nothing is asked while `paused` (the real edit is being saved).
 */
export function useEditPreview(
  order: Order,
  etag: string | undefined,
  form: EditForm,
  paused: boolean,
): EditPreviewState {
  const current = form.ready ? JSON.stringify(form.body) : '';
  const [state, setState] = useState<Omit<EditPreviewState, 'current'>>({ updating: false });
  // The rows change with the body: those of the body asked are the form's when the answer comes.
  const rows = useRef(form.rows);
  rows.current = form.rows;

  useEffect(() => {
    if (!current || paused) {
      setState((s) => (s.updating ? { ...s, updating: false } : s));
      return;
    }
    setState((s) => ({ ...s, updating: true }));
    const abort = new AbortController();
    const timer = setTimeout(async () => {
      try {
        const res = await versionedRequest<{ data: EditItemsResult }>(
          'POST',
          `/api/v1/orders/${order.id}/edit-items`,
          { ...JSON.parse(current), dry_run: true },
          { ifMatch: etag, signal: abort.signal },
        );
        setState((s) => ({
          ...s,
          result: res.body.data,
          resultOf: current,
          resultRows: rows.current,
          updating: false,
        }));
      } catch (reason) {
        if (abort.signal.aborted) return;
        setState((s) => ({ ...s, error: reason, errorOf: current, updating: false }));
      }
    }, PREVIEW_DELAY_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [current, paused, order.id, etag]);

  return { ...state, current };
}
