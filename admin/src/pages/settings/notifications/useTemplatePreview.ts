import { useEffect, useRef, useState } from 'react';
import { ApiError, request } from '../../../api/client';
import type { RenderedMessage } from '../../../api/types';
import { previewBody, type TemplateParts } from './notification-text';

/** How long typing must pause before the preview is asked for. */
export const PREVIEW_DELAY_MS = 400;

export interface TemplatePreview {
  /** The last message that rendered (kept while a later draft fails, so the page does not jump). */
  message: RenderedMessage | undefined;
  /** The 400 of the latest draft (a part that does not parse or render), or another failure. */
  error: unknown;
  /** A preview of the latest draft is on its way. */
  updating: boolean;
}

/**
 * The live preview of a template being edited: POST …/preview with the parts that differ from the
 * saved ones, PREVIEW_DELAY_MS after the last change; an answer to an older draft is dropped.
 */
export function useTemplatePreview(
  kind: string,
  saved: TemplateParts | undefined,
  draft: TemplateParts | undefined,
): TemplatePreview {
  const [message, setMessage] = useState<RenderedMessage>();
  const [error, setError] = useState<unknown>();
  const [updating, setUpdating] = useState(false);
  const first = useRef(true);
  const body = saved && draft ? JSON.stringify(previewBody(saved, draft)) : undefined;

  useEffect(() => {
    if (body === undefined) return;
    const controller = new AbortController();
    setUpdating(true);
    // The saved template's preview is shown at once; the merchant's typing waits for a pause.
    const delay = first.current ? 0 : PREVIEW_DELAY_MS;
    first.current = false;
    const timer = window.setTimeout(() => {
      request<{ data: RenderedMessage }>(
        'POST',
        `/api/v1/notifications/templates/${encodeURIComponent(kind)}/preview`,
        JSON.parse(body),
        { signal: controller.signal },
      ).then(
        (answer) => {
          if (controller.signal.aborted) return;
          setMessage(answer.data);
          setError(undefined);
          setUpdating(false);
        },
        (reason: unknown) => {
          if (controller.signal.aborted) return;
          setError(
            reason instanceof ApiError || reason instanceof Error ? reason : new Error(String(reason)),
          );
          setUpdating(false);
        },
      );
    }, delay);
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, [kind, body]);

  return { message, error, updating };
}
