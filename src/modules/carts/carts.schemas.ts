import { Type } from 'typebox';
import { Nullable } from '../../platform/http/envelopes.js';
import { CheckoutBody, RegionalPricing, ShippingAddressInput } from '../checkout/index.js';

const Id = Type.String({ minLength: 1, maxLength: 100 });
const Quantity = Type.Integer({ minimum: 1, maximum: 10_000 });

export const CartParams = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 100 }),
  cartId: Type.String({ minLength: 1, maxLength: 100 }),
});
export const CartItemParams = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 100 }),
  cartId: Type.String({ minLength: 1, maxLength: 100 }),
  itemId: Type.String({ minLength: 1, maxLength: 100 }),
});

export const CartItemInput = Type.Object(
  { productId: Id, variantId: Type.Optional(Nullable(Id)), quantity: Quantity },
  { additionalProperties: false },
);

export const CreateCartBody = Type.Object(
  {
    items: Type.Optional(Type.Array(CartItemInput, { maxItems: 100 })),
    email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
  },
  { additionalProperties: false },
);

export const UpdateCartItemBody = Type.Object(
  { quantity: Type.Integer({ minimum: 0, maximum: 10_000, description: '0 removes the line' }) },
  { additionalProperties: false },
);

export const UpdateCartBody = Type.Object(
  {
    email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
    shippingAddress: Type.Optional(Nullable(ShippingAddressInput)),
    couponCode: Type.Optional(
      Nullable(Type.String({ maxLength: 100, description: 'null removes the coupon' })),
    ),
    shippingRateId: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 100,
          description:
            "One of the cart's `shippingOptions` (400 when it is not among them); null: the cheapest",
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

/** How the cart is paid: checkout's own payment fields (the same methods, checked the same way). */
export const CompleteCartBody = Type.Pick(CheckoutBody, ['paymentMethod', 'cardToken'], {
  additionalProperties: false,
});

const CartLine = Type.Object({
  id: Type.String(),
  productId: Type.String(),
  variantId: Nullable(Type.String()),
  name: Type.String(),
  variantTitle: Nullable(Type.String()),
  sku: Nullable(Type.String()),
  image: Nullable(Type.String()),
  quantity: Type.Integer(),
  price: Type.Number(),
  total: Type.Number(),
  inStock: Type.Boolean(),
});

const CartAddress = Type.Object({
  firstName: Type.Optional(Nullable(Type.String())),
  lastName: Type.Optional(Nullable(Type.String())),
  line1: Type.String(),
  line2: Type.Optional(Nullable(Type.String())),
  city: Type.String(),
  region: Type.Optional(Nullable(Type.String())),
  postalCode: Type.String(),
  country: Type.String(),
  phone: Type.Optional(Nullable(Type.String())),
});

export const Cart = Type.Object({
  id: Type.String({ description: 'An unguessable token: whoever holds it may use the cart' }),
  currency: Type.String(),
  items: Type.Array(CartLine),
  itemCount: Type.Integer(),
  subtotal: Type.Number(),
  discountAmount: Type.Number(),
  shippingAmount: Type.Number(),
  taxAmount: Type.Number(),
  total: Type.Number(),
  couponCode: Nullable(Type.String()),
  ...RegionalPricing,
  email: Nullable(Type.String()),
  shippingAddress: Nullable(CartAddress),
  customerId: Nullable(Type.String()),
  updatedAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
});
