import { type Static, Type } from 'typebox';
import { Nullable, PageQuery, StringEnum } from '../../platform/http/envelopes.js';
import { moneyInput } from '../../platform/http/money-input.js';

/** Requests accept a decimal string ("5.00", "12.5") or a number; responses always use the string. */
const decimalInput = moneyInput;
const Id = Type.String({ minLength: 1, maxLength: 100 });
const DiscountTypeSchema = StringEnum(['percentage', 'fixed_amount', 'free_shipping']);
const Timestamp = Type.String({ format: 'date-time' });
const Title = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', ...(description ? { description } : {}) });

const discountFields = {
  code: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^\\S+$',
      description:
        'The coupon code (no spaces; unique per store, case-insensitive); null for an automatic discount',
    }),
  ),
  title: Title(),
  type: DiscountTypeSchema,
  value: decimalInput(
    'percentage: a percent above 0 and at most 100, up to 2 decimals ("15", "12.5"); fixed_amount: an amount in the store currency ("5.00"); free_shipping: 0 or omitted',
  ),
  min_subtotal: Nullable(decimalInput('Minimum cart subtotal in the store currency ("50.00")')),
  starts_at: Timestamp,
  ends_at: Nullable(Timestamp),
  usage_limit: Nullable(Type.Integer({ minimum: 1, maximum: 2_000_000_000 })),
  once_per_customer: Type.Boolean(),
  active: Type.Boolean(),
  product_ids: Type.Array(Id, { maxItems: 100, uniqueItems: true }),
  category_ids: Type.Array(Id, { maxItems: 100, uniqueItems: true }),
};

const O = Type.Optional;
const f = discountFields;

export const DiscountCreateBody = Type.Object(
  {
    code: O(f.code),
    title: O(Title('Required for an automatic discount; defaults to the code')),
    type: f.type,
    value: O(f.value),
    min_subtotal: O(f.min_subtotal),
    starts_at: O(Type.String({ format: 'date-time', description: 'Default: now' })),
    ends_at: O(f.ends_at),
    usage_limit: O(f.usage_limit),
    once_per_customer: O(f.once_per_customer),
    active: O(f.active),
    product_ids: O(f.product_ids),
    category_ids: O(f.category_ids),
  },
  { additionalProperties: false },
);

export const DiscountUpdateBody = Type.Partial(Type.Object(discountFields, { additionalProperties: false }), {
  additionalProperties: false,
  minProperties: 1,
});

export type DiscountCreateInput = Static<typeof DiscountCreateBody>;
export type DiscountUpdateInput = Static<typeof DiscountUpdateBody>;

export const Discount = Type.Object(
  {
    id: Type.String(),
    code: Nullable(Type.String()),
    title: Type.String(),
    type: DiscountTypeSchema,
    value: Type.String(),
    min_subtotal: Nullable(Type.String()),
    starts_at: Timestamp,
    ends_at: Nullable(Timestamp),
    usage_limit: Nullable(Type.Integer()),
    usage_count: Type.Integer(),
    once_per_customer: Type.Boolean(),
    active: Type.Boolean(),
    product_ids: Type.Array(Type.String()),
    category_ids: Type.Array(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Discount' },
);

export const DiscountListQuery = Type.Object({
  ...PageQuery,
  active: Type.Optional(Type.Boolean()),
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Matches code or title, case-insensitive' })),
});
