import { Type } from 'typebox';
import { CountryCodeInput } from '../../platform/http/country-input.js';
import { cursorQuery } from '../../platform/http/cursor.js';
import { IdFilter, Nullable, PageQuery, StringEnum } from '../../platform/http/envelopes.js';
import { MoneyInput, moneyInput } from '../../platform/http/money-input.js';
import { FulfillmentStatus, OrderStatus, PaymentStatus, RefundProvider } from './order-status.schema.js';

const Id = Type.String({ minLength: 1, maxLength: 100 });
const Text = (maxLength: number) => Type.String({ maxLength });

export const AddressInput = Type.Object(
  {
    first_name: Type.Optional(Nullable(Text(100))),
    last_name: Type.Optional(Nullable(Text(100))),
    line1: Type.String({ minLength: 1, maxLength: 255 }),
    line2: Type.Optional(Nullable(Text(255))),
    city: Type.String({ minLength: 1, maxLength: 100 }),
    region: Type.Optional(Nullable(Text(100))),
    postal_code: Type.String({ minLength: 1, maxLength: 20 }),
    country: CountryCodeInput,
    phone: Type.Optional(Nullable(Text(40))),
  },
  { additionalProperties: false },
);

const Address = Type.Object({
  first_name: Type.Optional(Nullable(Type.String())),
  last_name: Type.Optional(Nullable(Type.String())),
  line1: Type.String(),
  line2: Type.Optional(Nullable(Type.String())),
  city: Type.String(),
  region: Type.Optional(Nullable(Type.String())),
  postal_code: Type.String(),
  country: Type.String(),
  phone: Type.Optional(Nullable(Type.String())),
});

const Quantity = Type.Integer({ minimum: 1, maximum: 100_000 });
const Email = Type.String({ format: 'email', maxLength: 254 });

export const OrderCreateBody = Type.Object(
  {
    customer: Type.Object(
      {
        email: Email,
        first_name: Type.Optional(Nullable(Text(100))),
        last_name: Type.Optional(Nullable(Text(100))),
        phone: Type.Optional(Nullable(Text(40))),
      },
      { additionalProperties: false },
    ),
    items: Type.Array(
      Type.Object(
        {
          product_id: Id,
          variant_id: Type.Optional(Nullable(Id)),
          quantity: Quantity,
          price: Type.Optional(MoneyInput),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 250 },
    ),
    shipping_address: Type.Optional(Nullable(AddressInput)),
    shipping_rate_id: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 100,
          description:
            "One of the shipping options of the address's zone (§12); without it the cheapest. 400 when it is not among them",
        }),
      ),
    ),
    coupon_code: Type.Optional(Nullable(Text(100))),
    notes: Type.Optional(Nullable(Text(5000))),
    payment_method: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 50 }))),
    mark_paid: Type.Optional(Type.Boolean({ description: 'Record the order as paid in full' })),
    send_receipt: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "true: the buyer gets the order_confirmation e-mail. The store's new_order e-mail is sent for every order",
      }),
    ),
  },
  { additionalProperties: false },
);

export const OrderUpdateBody = Type.Object(
  {
    status: Type.Optional(OrderStatus),
    notes: Type.Optional(Nullable(Text(5000))),
    shipping_address: Type.Optional(Nullable(AddressInput)),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const FulfillBody = Type.Object(
  {
    carrier: Type.Optional(Nullable(Text(100))),
    tracking_number: Type.Optional(Nullable(Text(100))),
    tracking_url: Type.Optional(Nullable(Type.String({ format: 'uri', maxLength: 2048 }))),
  },
  { additionalProperties: false },
);

export const CancelBody = Type.Object(
  {
    reason: Type.Optional(Nullable(Text(500))),
    restock: Type.Optional(Type.Boolean({ description: 'Return the items to stock (default true)' })),
  },
  { additionalProperties: false },
);

export const MarkPaidBody = Type.Object(
  {
    amount: Type.Optional(MoneyInput),
    payment_method: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 50 }))),
  },
  { additionalProperties: false },
);

export const EditItemsBody = Type.Object(
  {
    update_quantity: Type.Optional(
      Type.Array(Type.Object({ item_id: Id, new_quantity: Quantity }, { additionalProperties: false }), {
        maxItems: 250,
      }),
    ),
    add: Type.Optional(
      Type.Array(
        Type.Object(
          {
            product_id: Id,
            variant_id: Type.Optional(Nullable(Id)),
            name: Type.String({ minLength: 1, maxLength: 255 }),
            variant_title: Type.Optional(Nullable(Text(255))),
            quantity: Quantity,
            price: MoneyInput,
          },
          { additionalProperties: false },
        ),
        { maxItems: 250 },
      ),
    ),
    remove: Type.Optional(Type.Array(Id, { maxItems: 250 })),
    dry_run: Type.Optional(
      Type.Boolean({
        description:
          'true: a preview. The edit is computed by the same code, with the same validation and errors, and nothing is saved (no line, stock, event, history entry or ETag change); the answer carries `order` as the edit would leave it (retaxed `tax_lines` and `tax_amount`, totals, `balance_due`, `payment_status`)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const OrderListQuery = Type.Object({
  ...PageQuery,
  ...cursorQuery,
  status: Type.Optional(OrderStatus),
  payment_status: Type.Optional(PaymentStatus),
  fulfillment_status: Type.Optional(FulfillmentStatus),
  customer_id: Type.Optional(IdFilter("This customer's orders")),
  created_from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive, ISO 8601' })),
  created_to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive, ISO 8601' })),
  q: Type.Optional(Type.String({ maxLength: 254, description: 'An order number, or an exact e-mail' })),
});

const LineItem = Type.Object({
  id: Type.String(),
  product_id: Nullable(Type.String()),
  variant_id: Nullable(Type.String()),
  name: Type.String(),
  variant_title: Nullable(Type.String()),
  sku: Nullable(Type.String()),
  quantity: Type.Integer(),
  price: Type.Number(),
  total: Type.Number(),
});

const Buyer = Type.Object({
  id: Nullable(Type.String()),
  email: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
});

const amounts = {
  subtotal: Type.Number(),
  discount_amount: Type.Number(),
  shipping_amount: Type.Number(),
  tax_amount: Type.Number(),
  total: Type.Number(),
  amount_paid: Type.Number(),
  amount_refunded: Type.Number({
    description: 'Refunds that succeeded; a pending refund is not counted yet',
  }),
  balance_due: Type.Number({ description: 'total − amount_paid; negative when a refund is due' }),
};

const Timestamp = Type.String({ format: 'date-time' });

export const OrderSummary = Type.Object(
  {
    id: Type.String(),
    order_number: Type.String(),
    status: OrderStatus,
    payment_status: PaymentStatus,
    fulfillment_status: FulfillmentStatus,
    currency: Type.String(),
    ...amounts,
    item_count: Type.Integer(),
    customer: Buyer,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'OrderSummary' },
);

/** One tax charged on an order: `rate` a percentage string ("19", "7.25"). */
export const TaxLine = Type.Object({
  name: Type.String(),
  rate: Type.String({ description: 'A percentage, e.g. "7.25"' }),
  amount: Type.Number(),
});

export const Order = Type.Object(
  {
    id: Type.String(),
    order_number: Type.String({ description: 'Per-store sequence from 1001, as a string' }),
    status: OrderStatus,
    payment_status: PaymentStatus,
    fulfillment_status: FulfillmentStatus,
    currency: Type.String(),
    ...amounts,
    coupon_code: Nullable(Type.String()),
    payment_method: Nullable(Type.String()),
    customer: Buyer,
    shipping_address: Nullable(Address),
    shipping_method: Nullable(
      Type.Object(
        { rate_id: Nullable(Type.String()), name: Type.String() },
        { description: 'The shipping rate chosen at checkout, with its name then; null with the flat rate' },
      ),
    ),
    tax_lines: Type.Array(TaxLine),
    taxes_included: Type.Boolean({
      description: 'The prices contain the tax (tax_amount is part of the total, not added to it)',
    }),
    notes: Nullable(Type.String()),
    line_items: Type.Array(LineItem),
    fulfillments: Type.Array(
      Type.Object({
        id: Type.String(),
        carrier: Nullable(Type.String()),
        tracking_number: Nullable(Type.String()),
        tracking_url: Nullable(Type.String()),
        created_at: Timestamp,
      }),
    ),
    cancel_reason: Nullable(Type.String()),
    cancelled_at: Nullable(Timestamp),
    paid_at: Nullable(Timestamp),
    fulfilled_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Order' },
);

export const EditItemsResult = Type.Object({
  id: Type.String(),
  order_number: Type.Integer({ description: 'A number here, as the specification shows' }),
  old_total: Type.Number(),
  new_total: Type.Number(),
  price_difference: Type.Number({
    description: 'new_total − old_total: positive to charge, negative to refund',
  }),
  subtotal: Type.Number(),
  discount_amount: Type.Number({ description: 'Frozen: never recalculated by an edit' }),
  total: Type.Number(),
  line_items: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      quantity: Type.Integer(),
      price: Type.Number(),
      total: Type.Number(),
    }),
  ),
  dry_run: Type.Optional(Type.Literal(true, { description: 'Present on a preview only: nothing was saved' })),
  /** Present on a preview only: the whole order as the edit would leave it. */
  order: Type.Optional(Order),
});

export const RefundCreateBody = Type.Object(
  {
    amount: moneyInput(
      "Positive, in the order's currency; at most what was paid minus what was refunded (or is pending)",
    ),
    reason: Type.Optional(Nullable(Text(500))),
    restock: Type.Optional(
      Type.Array(Type.Object({ line_item_id: Id, quantity: Quantity }, { additionalProperties: false }), {
        maxItems: 250,
        description:
          'Units to put back into stock (history reason `refund`); at most what the line bought minus what earlier refunds restocked',
      }),
    ),
  },
  { additionalProperties: false },
);

export const Refund = Type.Object(
  {
    id: Type.String(),
    order_id: Type.String(),
    amount: Type.Number(),
    currency: Type.String(),
    reason: Nullable(Type.String()),
    status: StringEnum(['succeeded', 'pending', 'failed'], {
      description:
        'pending: sent to the provider, not confirmed yet (its amount stays reserved); failed: refused by the provider (nothing refunded, nothing restocked)',
    }),
    provider: RefundProvider,
    provider_refund_id: Nullable(Type.String()),
    failure_reason: Nullable(Type.String()),
    restocked: Type.Array(Type.Object({ line_item_id: Type.String(), quantity: Type.Integer() })),
    created_at: Timestamp,
  },
  { $id: 'Refund' },
);
