import { Type } from 'typebox';
import { Nullable, PageQuery } from '../../platform/http/envelopes.js';

export const CustomerAddress = Type.Object({
  id: Type.String({ format: 'uuid' }),
  line1: Type.String(),
  line2: Nullable(Type.String()),
  city: Type.String(),
  region: Nullable(Type.String()),
  postal_code: Type.String(),
  country: Type.String(),
  phone: Nullable(Type.String()),
  is_default: Type.Boolean(),
});

export const Customer = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    first_name: Nullable(Type.String()),
    last_name: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    orders_count: Type.Integer({ description: 'Orders placed, cancelled ones included' }),
    total_spent: Type.Number({ description: 'Money paid on orders that are not cancelled' }),
    addresses: Type.Array(CustomerAddress),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Customer' },
);

export const CustomerListQuery = Type.Object({
  ...PageQuery,
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Matches e-mail or name, case-insensitive' })),
});
