export { checkoutRoutes } from './checkout.routes.js';
export { CustomerOrder } from './checkout.schemas.js';
export { type CheckoutService, createCheckoutService } from './checkout.service.js';
