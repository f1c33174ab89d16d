export { customerAuthRoutes, customerLogoutRoutes } from './customer-accounts.routes.js';
export {
  type CustomerAccountsService,
  createCustomerAccountsService,
  pruneExpiredLogins,
} from './customer-accounts.service.js';
