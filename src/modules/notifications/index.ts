export {
  type BackInStockService,
  createBackInStockService,
  endBackInStockSubscriptions,
} from './back-in-stock.service.js';
export { backInStockRoutes } from './back-in-stock.storefront.routes.js';
export {
  type ComposerDeps,
  type ComposerDeps as NotificationTemplatesDeps,
  createNotificationComposer,
} from './composer.js';
export { DEFAULT_TEMPLATES, type TemplateParts } from './defaults/default-templates.js';
export {
  isNotificationKind,
  MAIL_RETRY_SCHEDULE_MS,
  MERCHANT_KINDS,
  NOTIFICATION_KINDS,
  type NotificationKind,
} from './kinds.js';
export { isTransientSendFailure, nextMailStep, retryDelayMs } from './mail-retry.js';
export type { ComposedMessage, NotificationComposer, QueuedNotification } from './message.js';
export { createNotificationLog, type NotificationLog } from './notifications.log.js';
export { notificationLogRoutes } from './notifications.log.routes.js';
export {
  insertNotification,
  NOTIFICATIONS_CHANNEL,
  type QueueNotificationInput,
  queueNotification,
} from './notifications.queue.js';
export { createNotificationResender, type NotificationResender } from './notifications.resend.js';
export { notificationResendRoutes } from './notifications.resend.routes.js';
export { type NotificationLogRow, notificationRecord } from './notifications.serializers.js';
export type { NotificationRefs, NotificationStatus } from './notifications.tables.js';
export {
  LOGGED_NOT_SENT,
  type NotificationJobsOptions,
  notificationJobs,
  notificationLogRetention,
} from './notifications.worker.js';
export { renderMessage } from './render-message.js';
export { TemplateError } from './template-engine.js';
export { notificationTemplatesRoutes } from './templates.routes.js';
export {
  createTemplatesService as createNotificationTemplates,
  type TemplatesService as NotificationTemplates,
} from './templates.service.js';
