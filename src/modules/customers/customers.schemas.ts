import { Type } from 'typebox';
import { CountryCodeInput } from '../../platform/http/country-input.js';
import { cursorQuery } from '../../platform/http/cursor.js';
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
  ...cursorQuery,
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Matches e-mail or name, case-insensitive' })),
});

export const CustomerProfile = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    firstName: Nullable(Type.String()),
    lastName: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'CustomerProfile' },
);

export const ProfileUpdateBody = Type.Object(
  {
    firstName: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    lastName: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    phone: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
  },
  { additionalProperties: false },
);

export const SavedAddress = Type.Object({
  id: Type.String(),
  line1: Type.String(),
  line2: Nullable(Type.String()),
  city: Type.String(),
  region: Nullable(Type.String()),
  postalCode: Type.String(),
  country: Type.String(),
  phone: Nullable(Type.String()),
  isDefault: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});

export const AddressCreateBody = Type.Object(
  {
    line1: Type.String({ minLength: 1, maxLength: 255 }),
    line2: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    city: Type.String({ minLength: 1, maxLength: 100 }),
    region: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    postalCode: Type.String({ minLength: 1, maxLength: 20 }),
    country: CountryCodeInput,
    phone: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
    isDefault: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
