import { type Static, Type } from 'typebox';
import { IdFilter, Nullable, pageQuery, StringEnum } from '../../platform/http/envelopes.js';
import { NOTIFICATION_KINDS } from './kinds.js';

/**
 * The request and response shapes of contract §13 (merchant API, `/api/v1/notifications`) and of
 * the shop's notify-me form. Template parts are capped so that a hostile body is refused before
 * Liquid sees it; the renderer adds its own time and output limits.
 */

/** The longest subject, and template body (HTML or text part), a store may save. */
export const MAX_SUBJECT_LENGTH = 1000;
export const MAX_TEMPLATE_LENGTH = 100_000;

export const NotificationKindSchema = StringEnum(NOTIFICATION_KINDS, {
  description:
    'order_confirmation, shipping_confirmation, order_cancelled, refund_issued and back_in_stock go to the buyer; new_order and low_stock to the store',
});
export const KindParams = Type.Object({ kind: Type.String({ minLength: 1, maxLength: 100 }) });

const Timestamp = Type.String({ format: 'date-time' });

export const NotificationTemplate = Type.Object({
  kind: NotificationKindSchema,
  enabled: Type.Boolean({ description: 'false: nothing of this kind is queued' }),
  subject: Type.String({ description: 'Liquid, rendered as plain text' }),
  html: Type.String({ description: 'Liquid; values are HTML-escaped unless the template says `| raw`' }),
  text: Type.String({ description: 'Liquid, rendered as plain text: the plain-text alternative' }),
  customised: Type.Boolean({ description: 'true when the store changed any part from the default' }),
  variables: Type.Array(Type.String(), {
    description: 'The variables this kind renders with (`order`, `store`, `shipment`, …)',
  }),
});
export type NotificationTemplate = Static<typeof NotificationTemplate>;

export const TemplateUpdate = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_SUBJECT_LENGTH })),
    html: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_TEMPLATE_LENGTH })),
    text: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_TEMPLATE_LENGTH })),
  },
  { additionalProperties: false },
);
export type TemplateUpdate = Static<typeof TemplateUpdate>;

/** A preview may render unsaved parts (the dashboard's live preview); missing parts: the saved ones. */
export const PreviewBody = Type.Object(
  {
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_SUBJECT_LENGTH })),
    html: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_TEMPLATE_LENGTH })),
    text: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_TEMPLATE_LENGTH })),
  },
  { additionalProperties: false },
);
export type PreviewBody = Static<typeof PreviewBody>;

export const RenderedMessage = Type.Object({
  subject: Type.String(),
  html: Type.String(),
  text: Type.String(),
});
export type RenderedMessage = Static<typeof RenderedMessage>;

export const TestSendBody = Type.Object(
  { to: Type.String({ format: 'email', maxLength: 254 }) },
  { additionalProperties: false },
);

export const NotificationStatusSchema = StringEnum(['pending', 'sent', 'failed'] as const);

export const NotificationRecord = Type.Object({
  id: Type.String(),
  kind: NotificationKindSchema,
  to: Type.String(),
  subject: Nullable(Type.String({ description: 'null until the worker first renders the message' })),
  status: NotificationStatusSchema,
  attempts: Type.Integer(),
  last_error: Nullable(Type.String()),
  order_id: Nullable(Type.String()),
  created_at: Timestamp,
  sent_at: Nullable(Timestamp),
});
export type NotificationRecord = Static<typeof NotificationRecord>;

export const NotificationLogQuery = Type.Object({
  ...pageQuery(),
  kind: Type.Optional(NotificationKindSchema),
  status: Type.Optional(NotificationStatusSchema),
  order_id: Type.Optional(IdFilter('Only the e-mails of this order')),
});

/** The shop's "tell me when it is back" form (storefront API, camelCase as its other bodies). */
export const NotifyMeBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    variantId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type NotifyMeBody = Static<typeof NotifyMeBody>;
