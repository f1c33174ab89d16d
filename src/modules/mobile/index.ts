export { mobileRoutes } from './mobile.routes.js';
export { createMobileService, type MobileService } from './mobile.service.js';
export {
  type OrderPushInput,
  type OrderPushKind,
  type OrderTracking,
  orderPushContent,
  queueOrderPush,
} from './push.js';
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
