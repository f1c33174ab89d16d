export { customerAuthRoutes, customerLogoutRoutes } from './customer-accounts.routes.js';
export {
  type CustomerAccountsService,
  createCustomerAccountsService,
  pruneExpiredLogins,
} from './customer-accounts.service.js';
export {
  createRequestLimiter,
  REQUEST_LIMITS,
  REQUEST_WINDOW_MS,
  type RequestLimiter,
} from './request-limits.js';
