/** The e-mails of contract §13: five to the buyer, two to the store's contact e-mail. */
export const NOTIFICATION_KINDS = [
  'order_confirmation',
  'shipping_confirmation',
  'order_cancelled',
  'refund_issued',
  'back_in_stock',
  'new_order',
  'low_stock',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const isNotificationKind = (value: string): value is NotificationKind =>
  (NOTIFICATION_KINDS as readonly string[]).includes(value);

/** Kinds sent to the store (its contact e-mail, or its owner's when unset), not to a buyer. */
export const MERCHANT_KINDS: readonly NotificationKind[] = ['new_order', 'low_stock'];

/** The retry schedule of a message after a network error or an SMTP 4xx answer (± 10 %). */
export const MAIL_RETRY_SCHEDULE_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 12 * 3600_000] as const;
