import type { Static } from 'typebox';
import { StringEnum } from '../../platform/http/envelopes.js';
import { ORDER_STATUSES } from './order-state.js';
import type {
  FulfillmentStatus as FulfillmentStatusValue,
  PaymentStatus as PaymentStatusValue,
} from './orders.tables.js';

/** An order's three statuses, for requests and answers alike (snake_case and camelCase shapes). */
export const OrderStatus = StringEnum(ORDER_STATUSES);
export const PaymentStatus = StringEnum([
  'unpaid',
  'pending',
  'partially_paid',
  'paid',
  'partially_refunded',
  'refunded',
  'refund_due',
] as const satisfies readonly PaymentStatusValue[]);
export const FulfillmentStatus = StringEnum([
  'unfulfilled',
  'fulfilled',
] as const satisfies readonly FulfillmentStatusValue[]);
/** The refund's provider: one of the payment methods (payments/providers.ts). */
export const RefundProvider = StringEnum(['manual', 'test_card', 'stripe'] as const, {
  description: 'manual, test_card or stripe',
});
export type RefundProviderName = Static<typeof RefundProvider>;
