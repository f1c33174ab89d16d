export { checkoutRoutes } from './checkout.routes.js';
export { CheckoutBody, ShippingAddressInput } from './checkout.schemas.js';
export type { CheckoutInput } from './checkout.service.js';
export { type CheckoutService, createCheckoutService } from './checkout.service.js';
