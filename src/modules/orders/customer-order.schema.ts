import { Type } from 'typebox';
import { Nullable } from '../../platform/http/envelopes.js';
import { FulfillmentStatus, OrderStatus, PaymentStatus } from './order-status.schema.js';

/** The order as its buyer sees it (checkout answer, customer account): camelCase. */
const Nullish = (t: ReturnType<typeof Type.String>) => Nullable(t);

export const CustomerOrder = Type.Object(
  {
    id: Type.String(),
    orderNumber: Type.String(),
    status: OrderStatus,
    paymentStatus: PaymentStatus,
    fulfillmentStatus: FulfillmentStatus,
    currency: Type.String(),
    subtotal: Type.Number(),
    discountAmount: Type.Number(),
    shippingAmount: Type.Number(),
    taxAmount: Type.Number(),
    total: Type.Number(),
    amountPaid: Type.Number(),
    amountRefunded: Type.Number(),
    balanceDue: Type.Number(),
    couponCode: Nullish(Type.String()),
    paymentMethod: Nullish(Type.String()),
    email: Type.String(),
    shippingAddress: Nullable(
      Type.Object({
        firstName: Nullish(Type.String()),
        lastName: Nullish(Type.String()),
        line1: Type.String(),
        line2: Nullish(Type.String()),
        city: Type.String(),
        region: Nullish(Type.String()),
        postalCode: Type.String(),
        country: Type.String(),
        phone: Nullish(Type.String()),
      }),
    ),
    shippingMethod: Nullable(
      Type.Object(
        { rateId: Nullish(Type.String()), name: Type.String() },
        { description: 'The shipping rate chosen at checkout; null with the flat rate' },
      ),
    ),
    taxLines: Type.Array(
      Type.Object({
        name: Type.String(),
        rate: Type.String({ description: 'A percentage, e.g. "19"' }),
        amount: Type.Number(),
      }),
    ),
    taxesIncluded: Type.Boolean({ description: 'The prices contain the tax (not added to the total)' }),
    lineItems: Type.Array(
      Type.Object({
        id: Type.String(),
        productId: Nullish(Type.String()),
        variantId: Nullish(Type.String()),
        name: Type.String(),
        variantTitle: Nullish(Type.String()),
        sku: Nullish(Type.String()),
        quantity: Type.Integer(),
        price: Type.Number(),
        total: Type.Number(),
      }),
    ),
    shipments: Type.Array(
      Type.Object({
        carrier: Nullish(Type.String()),
        trackingNumber: Nullish(Type.String()),
        trackingUrl: Nullish(Type.String()),
        shippedAt: Type.String({ format: 'date-time' }),
      }),
    ),
    cancelReason: Nullish(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'CustomerOrder' },
);
