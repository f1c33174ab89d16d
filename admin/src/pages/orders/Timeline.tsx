import { api } from '../../api/client';
import type { Order, TimelineEntry } from '../../api/types';
import { ErrorBanner, Loading } from '../../components/ui';
import { useResource } from '../../components/useResource';
import { formatMoney } from '../../lib/money';
import { useSession } from '../../session';

type Line = { id: string; name: string; quantity: number; price: number };

/** "28 Nov 2026, 14:05" in the store's time zone, whatever the browser's is. */
function inZone(iso: string, timeZone: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone });
}

function who(actor: TimelineEntry['actor']): string {
  if (actor.type === 'system') return 'System';
  // Changes recorded before the history kept who made them.
  if (actor.type === 'unknown') return 'Unknown (recorded before the history kept who)';
  const kind = { user: 'Staff', api_key: 'API key', customer: 'Customer' }[actor.type];
  return actor.name ? `${kind} ${actor.name}` : `${kind} (unknown)`;
}

function LineChanges({ entry, currency }: { entry: TimelineEntry; currency: string }) {
  const lines = entry.changes.line_items as { before: Line[]; after: Line[] } | undefined;
  if (!lines) return null;
  const row = (l: Line) => `${l.quantity} × ${l.name} at ${formatMoney(l.price, currency)}`;
  return (
    <div className="timeline-diff">
      <div>
        <span className="hint">Before</span>
        <ul>
          {lines.before.map((l) => (
            <li key={l.id}>{row(l)}</li>
          ))}
        </ul>
      </div>
      <div>
        <span className="hint">After</span>
        <ul>
          {lines.after.map((l) => (
            <li key={l.id}>{row(l)}</li>
          ))}
        </ul>
      </div>
    </div>
  );
}

function NotesChange({ entry }: { entry: TimelineEntry }) {
  const notes = entry.changes.notes as { before: string | null; after: string | null } | undefined;
  if (!notes) return null;
  return (
    <p className="hint">
      “{notes.before ?? ''}” → “{notes.after ?? ''}”
    </p>
  );
}

/** The order's recorded history (GET /orders/{id}/timeline), re-read whenever the order changes. */
export function Timeline({ order }: { order: Order }) {
  const timeZone = useSession().store.timezone;
  const timeline = useResource(
    (signal) => api.get<{ data: TimelineEntry[] }>(`/api/v1/orders/${order.id}/timeline`, undefined, signal),
    [order.id, order.updated_at],
  );
  if (timeline.error) return <ErrorBanner error={timeline.error} title="Could not load the history" />;
  if (!timeline.data) return <Loading label="Loading the history…" />;
  return (
    <>
      <p className="hint">Times in {timeZone}.</p>
      <ol className="timeline" data-testid="order-timeline">
        {timeline.data.data.map((entry) => (
          <li key={entry.id} data-type={entry.type}>
            <time dateTime={entry.at}>{inZone(entry.at, timeZone)}</time>
            <div>
              <span>{entry.summary}</span>
              <span className="hint"> · {who(entry.actor)}</span>
              <LineChanges entry={entry} currency={order.currency} />
              <NotesChange entry={entry} />
            </div>
          </li>
        ))}
      </ol>
    </>
  );
}
