export { customerAccountRoutes } from './customers.customer.routes.js';
export { customersRoutes } from './customers.routes.js';
export { type CustomersService, createCustomersService, type NewCustomer } from './customers.service.js';
