import { useEffect, useRef, useState } from 'react';
import { type Versioned, versionedRequest } from '../api/client';
import { StaleEdit, saveChanges } from '../lib/concurrency';

type Payload = Record<string, unknown>;

/**
 * The draft of an edit form over one resource at `path` (undefined for a new one), with the version
 * it was loaded from. The copy the form opens with (a list row) has no ETag: the resource is read
 * again when the form opens, and the draft follows it unless the merchant has started typing.
 * `save` sends only the changed fields with If-Match (saveChanges); when someone else changed the
 * same fields it answers undefined and `stale` names them, `showLatest` then resets the form.
 */
export function useVersionedDraft<T, D>(
  path: string | undefined,
  initial: T | undefined,
  draftOf: (data?: T) => D,
) {
  const [draft, setDraft] = useState<D>(() => draftOf(initial));
  const [loaded, setLoaded] = useState<Versioned<{ data: T }> | undefined>(
    initial ? { body: { data: initial }, etag: undefined } : undefined,
  );
  const [stale, setStale] = useState<StaleEdit<T>>();
  const dirty = useRef(false);
  const draftOfRef = useRef(draftOf);
  draftOfRef.current = draftOf;

  useEffect(() => {
    if (!path) return;
    const controller = new AbortController();
    versionedRequest<{ data: T }>('GET', path, undefined, { signal: controller.signal }).then(
      (latest) => {
        setLoaded(latest);
        if (!dirty.current) setDraft(draftOfRef.current(latest.body.data));
      },
      () => undefined, // the save still works, without If-Match
    );
    return () => controller.abort();
  }, [path]);

  const set = (change: Partial<D>) => {
    dirty.current = true;
    setDraft((d) => ({ ...d, ...change }));
  };

  const showLatest = (latest: Versioned<{ data: T }>) => {
    setLoaded(latest);
    setDraft(draftOf(latest.body.data));
    dirty.current = false;
    setStale(undefined);
  };

  /** The saved resource, or undefined when the save was refused as stale. */
  async function save(payloadOf: (draft: D) => Payload): Promise<T | undefined> {
    if (!path || !loaded) throw new Error('nothing loaded to save');
    setStale(undefined);
    try {
      const saved = await saveChanges({
        path,
        loaded,
        payloadOf: (data: T) => payloadOf(draftOf(data)),
        payload: payloadOf(draft),
      });
      return saved.body.data;
    } catch (error) {
      if (!(error instanceof StaleEdit)) throw error;
      setStale(error as StaleEdit<T>);
      return undefined;
    }
  }

  return { draft, set, stale, showLatest, save };
}
