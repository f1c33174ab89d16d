import { Type } from 'typebox';
import { Nullable, PageQuery, StringEnum } from '../../platform/http/envelopes.js';
import { WEBHOOK_EVENTS } from './events.js';

const EventName = StringEnum([...WEBHOOK_EVENTS, '*'], {
  description: 'An event name, or `*` for all events',
});
const DELIVERY_STATUSES = ['succeeded', 'failed', 'pending'] as const;
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'http(s) URL the events are posted to',
});

export const WebhookCreateBody = Type.Object(
  {
    url: Url,
    events: Type.Array(EventName, { minItems: 1, maxItems: 20, uniqueItems: true }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const WebhookUpdateBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Type.Array(EventName, { minItems: 1, maxItems: 20, uniqueItems: true })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    active: Type.Optional(Type.Boolean({ description: '`true` re-enables a disabled webhook' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

const webhookFields = {
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(EventName),
  description: Nullable(Type.String()),
  active: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  last_success_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'The latest successful delivery of an event; test sends are not counted',
    }),
  ),
  last_test: Nullable(
    Type.Object(
      {
        at: Type.String({ format: 'date-time' }),
        succeeded: Type.Boolean({ description: 'the receiver answered 2xx' }),
        status_code: Nullable(Type.Integer()),
      },
      { description: 'The latest test send (POST /webhooks/{id}/test, or a retry of one); null before any' },
    ),
  ),
  consecutive_failures: Type.Integer(),
  disabled_reason: Nullable(Type.String()),
};

export const Webhook = Type.Object(webhookFields, { $id: 'Webhook' });

export const WebhookWithSecret = Type.Object({
  ...webhookFields,
  secret: Type.String({ description: 'whsec_…: shown only here; sign-check deliveries with it' }),
});

export const DeliveryAttempt = Type.Object(
  {
    id: Type.String(),
    delivery_id: Type.String({ description: 'Stable across retries; sent as X-Webhook-Id' }),
    event_type: StringEnum(WEBHOOK_EVENTS),
    attempt: Type.Integer(),
    status: StringEnum(DELIVERY_STATUSES, {
      description: '`pending`: this attempt failed and another is scheduled',
    }),
    status_code: Nullable(Type.Integer()),
    request_body: Type.String({ description: 'The exact bytes posted' }),
    response_body: Nullable(Type.String({ description: 'First 4 KiB' })),
    error: Nullable(Type.String()),
    duration_ms: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    next_retry_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'DeliveryAttempt' },
);

export const DeliveryListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(StringEnum(DELIVERY_STATUSES)),
});

export const TestBody = Type.Object({ event: StringEnum(WEBHOOK_EVENTS) }, { additionalProperties: false });

export const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 100 }),
});
