export { type HoldVerdict, paymentHoldExpiryJobs } from './hold-expiry.js';
export { paymentsRoutes, stripeWebhookRoutes } from './payments.routes.js';
export { PaymentMethodSchema, PaymentSessionSchema, StorefrontPayments } from './payments.schemas.js';
export { createPaymentsService, type PaymentsService } from './payments.service.js';
export {
  PAYMENT_METHODS,
  type PaymentMethod,
  type PaymentProvider,
  type PaymentSession,
} from './providers.js';
export type { StripeAccounts } from './stripe-account.js';
export { createStripeAccounts } from './stripe-account.js';
export { createStripeRefundGateway } from './stripe-refunds.js';
