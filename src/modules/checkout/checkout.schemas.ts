import { Type } from 'typebox';
import { CountryCodeInput } from '../../platform/http/country-input.js';
import { Nullable } from '../../platform/http/envelopes.js';
import { CustomerOrder } from '../orders/index.js';
import { PaymentMethodSchema, PaymentSessionSchema } from '../payments/index.js';

const Id = Type.String({ minLength: 1, maxLength: 100 });
const Text = (maxLength: number) => Type.String({ maxLength });

export const ShippingAddressInput = Type.Object(
  {
    firstName: Type.Optional(Nullable(Text(100))),
    lastName: Type.Optional(Nullable(Text(100))),
    line1: Type.String({ minLength: 1, maxLength: 255 }),
    line2: Type.Optional(Nullable(Text(255))),
    city: Type.String({ minLength: 1, maxLength: 100 }),
    region: Type.Optional(Nullable(Text(100))),
    postalCode: Type.String({ minLength: 1, maxLength: 20 }),
    country: CountryCodeInput,
    phone: Type.Optional(Nullable(Text(40))),
  },
  { additionalProperties: false },
);

export const CheckoutBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    firstName: Type.Optional(Nullable(Text(100))),
    lastName: Type.Optional(Nullable(Text(100))),
    phone: Type.Optional(Nullable(Text(40))),
    items: Type.Array(
      Type.Object(
        {
          productId: Id,
          variantId: Type.Optional(Nullable(Id)),
          quantity: Type.Integer({ minimum: 1, maximum: 10_000 }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100 },
    ),
    shippingAddress: Type.Optional(Nullable(ShippingAddressInput)),
    shippingRateId: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 100,
          description:
            "One of the quote's `shippingOptions` for the address; without it the cheapest. 400 when it is not among them",
        }),
      ),
    ),
    couponCode: Type.Optional(Nullable(Text(100))),
    paymentMethod: PaymentMethodSchema,
    cardToken: Type.Optional(Nullable(Text(100))),
    notes: Type.Optional(Nullable(Text(2000))),
  },
  { additionalProperties: false },
);

const QuoteLine = Type.Object({
  productId: Type.String(),
  variantId: Nullable(Type.String()),
  name: Type.String(),
  variantTitle: Nullable(Type.String()),
  sku: Nullable(Type.String()),
  quantity: Type.Integer(),
  price: Type.Number(),
  total: Type.Number(),
});

/**
 * What the quote and the cart say of shipping and tax (contract §12): the options for the address
 * (empty without zones or before an address), the method it is priced at, the tax lines.
 */
export const RegionalPricing = {
  shippingOptions: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      amount: Type.Number(),
      deliveryDaysMin: Nullable(Type.Integer()),
      deliveryDaysMax: Nullable(Type.Integer()),
    }),
    { description: 'Cheapest first; empty for a store without zones or before an address is given' },
  ),
  shippingMethod: Nullable(
    Type.Object(
      { rateId: Type.String(), name: Type.String() },
      { description: 'The option shipping is priced at: the one chosen, else the cheapest' },
    ),
  ),
  taxLines: Type.Array(
    Type.Object({
      name: Type.String(),
      rate: Type.String({ description: 'A percentage, e.g. "19"' }),
      amount: Type.Number(),
    }),
  ),
  taxesIncluded: Type.Boolean({ description: 'Prices contain the tax: taxAmount is not added to the total' }),
};

export const CheckoutQuote = Type.Object({
  currency: Type.String(),
  subtotal: Type.Number(),
  discountAmount: Type.Number(),
  shippingAmount: Type.Number(),
  taxAmount: Type.Number(),
  total: Type.Number(),
  couponCode: Nullable(Type.String()),
  ...RegionalPricing,
  lineItems: Type.Array(QuoteLine),
});

/** The order checkout placed, with the payment the buyer still has to make (providers that confirm later). */
export const PlacedOrder = Type.Object({
  ...CustomerOrder.properties,
  payment: Type.Optional(PaymentSessionSchema),
});
