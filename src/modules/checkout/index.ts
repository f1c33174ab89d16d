export { checkoutRoutes, PROVIDER_UNAVAILABLE, placedOrder } from './checkout.routes.js';
export { CheckoutBody, PlacedOrder, RegionalPricing, ShippingAddressInput } from './checkout.schemas.js';
export type { CheckoutInput, CheckoutResult } from './checkout.service.js';
export { type CheckoutService, createCheckoutService } from './checkout.service.js';
