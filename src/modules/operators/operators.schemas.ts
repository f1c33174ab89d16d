import { Type } from 'typebox';
import { MAX_LIMIT, Nullable, StringEnum } from '../../platform/http/envelopes.js';

export const OperatorRef = Type.Object(
  { id: Type.String({ format: 'uuid' }), email: Type.String() },
  { $id: 'Operator' },
);

export const OperatorSession = Type.Object({ operator: OperatorRef });

export const OperatorLoginBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 1000 }),
  },
  { additionalProperties: false },
);

const storeItemProperties = {
  id: Type.String({ format: 'uuid' }),
  slug: Type.String(),
  name: Type.String(),
  owner_email: Nullable(Type.String({ description: "The owner's e-mail (null: a store without members)" })),
  status: StringEnum(['active', 'suspended'] as const),
  created_at: Type.String({ format: 'date-time' }),
  products_count: Type.Integer({ description: 'Products of every status' }),
  orders_30d: Type.Integer({
    description:
      "Orders placed today and in the 29 days before (the store's time zone) that are not cancelled, as the store's analytics count them",
  }),
  revenue_30d: Type.Integer({
    description:
      "Money paid on those orders, in minor units of `currency` (the revenue of the store's analytics)",
  }),
  currency: Type.String({ description: "The store's currency (ISO 4217)" }),
  last_activity_at: Nullable(
    Type.String({
      format: 'date-time',
      description: "The latest of: an order placed, a member's sign-in, a change of the store",
    }),
  ),
};

export const OperatorStoreItem = Type.Object(storeItemProperties, { $id: 'OperatorStoreItem' });

export const OperatorStoreDetail = Type.Object(
  {
    ...storeItemProperties,
    timezone: Type.String(),
    custom_domain: Nullable(Type.String()),
    suspended_at: Nullable(Type.String({ format: 'date-time' })),
    suspension_reason: Nullable(Type.String()),
    members_count: Type.Integer({ description: 'Owners and staff members' }),
  },
  { $id: 'OperatorStoreDetail' },
);

export const OperatorStoreListQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({
        maxLength: 200,
        description: "Matches slug, name or an owner's e-mail (part of it, case-insensitive)",
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 20 })),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: '`next_cursor` of the previous page, with the same `q`',
      }),
    ),
  },
  { additionalProperties: false },
);

export const OperatorStoreList = Type.Object({
  data: Type.Array(OperatorStoreItem),
  next_cursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last' })),
});

export const SuspendBody = Type.Object(
  {
    reason: Type.String({
      minLength: 1,
      maxLength: 500,
      description: "Shown to the store's merchants and API clients in the refusals",
    }),
  },
  { additionalProperties: false },
);

export const DeletionAccepted = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: Type.Literal('deleting'),
});
