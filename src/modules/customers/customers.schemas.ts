import { Type } from 'typebox';
import { Nullable, PageQuery } from '../../platform/http/envelopes.js';

export const Customer = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    first_name: Nullable(Type.String()),
    last_name: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Customer' },
);

export const CustomerListQuery = Type.Object({
  ...PageQuery,
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Matches e-mail or name, case-insensitive' })),
});
