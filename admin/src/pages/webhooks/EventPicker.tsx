import { WEBHOOK_EVENTS, type WebhookEvent } from '../../api/types';
import { Checkbox } from '../../components/ui';

const DESCRIPTIONS: Record<string, string> = {
  'order.created': 'a new order',
  'order.paid': 'an order is fully paid',
  'order.updated': 'status, items, address, notes or amounts change',
  'order.cancelled': 'an order is cancelled',
  'order.refunded': 'money is refunded on an order',
  'product.low_stock': 'stock falls to the low-stock threshold',
  'product.out_of_stock': 'stock reaches zero',
};

/** What a webhook subscribes to: events by name, or `*` for all. */
export type SubscribedEvent = WebhookEvent | '*';

/** Event checkboxes, or every event (`*`, including those added later). */
export function EventPicker({
  value,
  onChange,
  error,
}: {
  value: SubscribedEvent[];
  onChange: (events: SubscribedEvent[]) => void;
  error?: string;
}) {
  const all = value.includes('*');
  return (
    <fieldset className="stack-sm">
      <legend>Events</legend>
      <Checkbox
        label="All events"
        hint="(also those added later)"
        checked={all}
        onChange={(e) => onChange(e.target.checked ? ['*'] : [])}
      />
      <div className="checkbox-grid">
        {WEBHOOK_EVENTS.map((event) => (
          <Checkbox
            key={event}
            label={<code>{event}</code>}
            hint={DESCRIPTIONS[event]}
            disabled={all}
            checked={all || value.includes(event)}
            onChange={(e) =>
              onChange(e.target.checked ? [...value, event] : value.filter((v) => v !== event))
            }
          />
        ))}
      </div>
      {error ? <div className="field-error">{error}</div> : null}
    </fieldset>
  );
}
