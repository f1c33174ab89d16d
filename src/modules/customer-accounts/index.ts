export { customerAuthRoutes, customerLogoutRoutes } from './customer-accounts.routes.js';
export { type CustomerAccountsService, createCustomerAccountsService } from './customer-accounts.service.js';
