import { useState } from 'react';
import type { Versioned } from '../../api/client';
import type { Order } from '../../api/types';
import { StaleNotice } from '../../components/StaleNotice';
import { Button, Card, ErrorBanner, TextAreaField } from '../../components/ui';
import { StaleEdit, saveChanges } from '../../lib/concurrency';

type Loaded = Versioned<{ data: Order }>;

/**
 * The notes, saved with If-Match (saveChanges): a payment or fulfilment made meanwhile changes the
 * order's version but not its notes, so the save goes through; notes changed meanwhile in another
 * page are not overwritten (StaleNotice).
 */
export function NotesCard({
  loaded,
  onSubmit,
  onSaved,
  onReload,
}: {
  loaded: Loaded;
  /** A save starts: the page's notice of an earlier one no longer holds. */
  onSubmit: () => void;
  onSaved: (order: Loaded) => void;
  onReload: (order: Loaded) => void;
}) {
  const order = loaded.body.data;
  const [notes, setNotes] = useState(order.notes ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [stale, setStale] = useState<StaleEdit<Order>>();
  const [saved, setSaved] = useState(false);
  const dirty = notes !== (order.notes ?? '');
  return (
    <Card title="Notes">
      <form
        className="stack"
        onSubmit={async (event) => {
          event.preventDefault();
          onSubmit();
          setBusy(true);
          setError(undefined);
          setSaved(false);
          setStale(undefined);
          try {
            onSaved(
              await saveChanges({
                path: `/api/v1/orders/${order.id}`,
                loaded,
                payloadOf: (latest: Order) => ({ notes: latest.notes ?? null }),
                payload: { notes: notes.trim() || null },
              }),
            );
            setSaved(true);
          } catch (reason) {
            if (reason instanceof StaleEdit) setStale(reason);
            else setError(reason);
          } finally {
            setBusy(false);
          }
        }}
      >
        {stale ? (
          <StaleNotice what="order" fields={stale.fields} onReload={() => onReload(stale.latest)} />
        ) : null}
        <ErrorBanner error={error} title="Could not save the notes" />
        <TextAreaField
          label="Internal notes"
          rows={3}
          value={notes}
          onChange={(e) => {
            setNotes(e.target.value);
            setSaved(false);
          }}
        />
        <div className="form-actions">
          {saved ? (
            <span role="status" className="text-good">
              Saved
            </span>
          ) : null}
          <Button type="submit" busy={busy} disabled={!dirty}>
            Save notes
          </Button>
        </div>
      </form>
    </Card>
  );
}
