export { checkoutRoutes } from './checkout.routes.js';

export { type CheckoutService, createCheckoutService } from './checkout.service.js';
