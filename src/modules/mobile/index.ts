export { mobileRoutes } from './mobile.routes.js';
export { createMobileService, type MobileService } from './mobile.service.js';
export {
  BACK_IN_STOCK_PUSH,
  insertBackInStockPushes,
  type OrderPushInput,
  type OrderPushKind,
  type OrderTracking,
  orderPushContent,
  queueOrderPush,
} from './push.js';
export { PUSH_CHANNEL } from './push.repository.js';
export {
  classifyFcmResponse,
  createFcmProvider,
  createLogPushProvider,
  maskToken,
  type PushMessage,
  type PushProvider,
  type PushResult,
} from './push-providers.js';
export {
  createPushWorker,
  PUSH_RETRY_SCHEDULE,
  type PushWorker,
  pushLogRetention,
  pushNotificationJobs,
} from './push-worker.js';
