import type { WebhookEvent } from './events.js';
import type { AttemptRow, WebhookRow } from './webhooks.repository.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function webhookForMerchant(row: WebhookRow) {
  return {
    id: row.id,
    url: row.url,
    // Text columns, written only from the validated event names (WEBHOOK_EVENTS and `*`).
    events: row.events as (WebhookEvent | '*')[],
    description: row.description,
    active: row.active,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    last_success_at: iso(row.last_success_at),
    last_test: row.last_test_at
      ? {
          at: row.last_test_at.toISOString(),
          succeeded: row.last_test_succeeded === true,
          status_code: row.last_test_status_code,
        }
      : null,
    consecutive_failures: row.consecutive_failures,
    disabled_reason: row.disabled_reason,
  };
}

/** One entry of the delivery log: one attempt. */
export function attemptForMerchant(row: AttemptRow) {
  return {
    id: row.id,
    delivery_id: row.delivery_id,
    event_type: row.event_type as WebhookEvent,
    attempt: row.attempt,
    status: row.status,
    status_code: row.status_code,
    request_body: row.request_body,
    response_body: row.response_body,
    error: row.error,
    duration_ms: row.duration_ms,
    created_at: row.created_at.toISOString(),
    next_retry_at: iso(row.next_retry_at),
  };
}
