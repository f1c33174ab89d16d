export { customerAccountRoutes } from './customers.customer.routes.js';
export { customersRoutes } from './customers.routes.js';
export { CustomerProfile } from './customers.schemas.js';
export { profileForCustomer } from './customers.serializers.js';
export { type CustomersService, createCustomersService, type NewCustomer } from './customers.service.js';
