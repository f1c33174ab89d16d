import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/http/envelopes.js';
import { MoneyInput } from '../../platform/http/money-input.js';
import { SCOPES } from '../../platform/http/scopes.js';
import { ERROR_HINT } from '../../platform/http/validation-messages.js';

const Timestamp = Type.String({ format: 'date-time' });

export const StoreSettings = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  currency: Type.String(),
  has_orders: Type.Boolean({
    description: 'The store has orders: its currency can no longer change (PATCH answers 409)',
  }),
  timezone: Type.String(),
  contact_email: Nullable(
    Type.String({
      description: "Where buyers' replies and the merchant's notices go; null: the owner's e-mail",
    }),
  ),
  logo: Nullable(Type.String()),
  colors: Type.Record(Type.String(), Type.String(), {
    description: 'The colours the store has set; one not set is drawn in its default (default_colors)',
  }),
  default_colors: Type.Object(
    {
      primary: Type.String(),
      secondary: Type.String(),
      accent: Type.String(),
      background: Type.String(),
      text: Type.String(),
    },
    { description: 'The colours the shop and the storefront config draw for those not set in colors' },
  ),
  low_stock_threshold: Type.Integer(),
  shipping_flat_rate: Type.String({ description: 'Decimal amount' }),
  free_shipping_threshold: Nullable(Type.String({ description: 'Decimal amount; null: never free' })),
  tax_rate: Type.String({ description: 'Percent, e.g. "8.25"' }),
  prices_include_tax: Type.Boolean({
    description: 'Catalogue prices and shipping rates contain the tax (as in the EU); default false',
  }),
  app_config: Type.Record(Type.String(), Type.Unknown()),
  custom_domain: Nullable(
    Type.String({ description: "The web shop's own hostname (served at / on it), lower-case; null: none" }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
});

// null removes the colour: the default (default_colors) is drawn again.
const Color = Nullable(
  Type.String({
    pattern: '^#[0-9a-fA-F]{6}$',
    description: '#rrggbb; null: the default',
    [ERROR_HINT]: 'must be a colour such as #1f2937',
  }),
);
export const StoreSettingsBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    logo: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
    colors: Type.Optional(
      Type.Object(
        {
          primary: Type.Optional(Color),
          secondary: Type.Optional(Color),
          accent: Type.Optional(Color),
          background: Type.Optional(Color),
          text: Type.Optional(Color),
        },
        { additionalProperties: false },
      ),
    ),
    currency: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{3}$',
        [ERROR_HINT]: 'must be a 3-letter currency code such as EUR',
        description:
          'An ISO 4217 code (USD, EUR, …) with the same minor units as the current one; 409 once the store has orders',
      }),
    ),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    contact_email: Type.Optional(
      Nullable(
        Type.String({
          format: 'email',
          maxLength: 254,
          description: "An e-mail address for buyers' replies and notices; null clears it",
        }),
      ),
    ),
    prices_include_tax: Type.Optional(Type.Boolean()),
    low_stock_threshold: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    shipping_flat_rate: Type.Optional(MoneyInput),
    free_shipping_threshold: Type.Optional(Nullable(MoneyInput)),
    tax_rate: Type.Optional(
      Type.Union(
        [Type.String({ pattern: '^\\d{1,3}(\\.\\d{1,2})?$' }), Type.Number({ minimum: 0, maximum: 100 })],
        { [ERROR_HINT]: 'must be a percentage from 0 to 100, such as 19 or 7.25' },
      ),
    ),
    custom_domain: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 300,
          description:
            'A hostname such as shop.example.com (no scheme, port or path), unique across stores (409 when taken); null or empty clears it',
        }),
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** The settings as the merchant API reads them: the dashboard's, without the mobile app's config. */
export const ApiStoreSettings = Type.Omit(StoreSettings, ['app_config']);

export const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  scopes: Type.Array(Type.String()),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
});

export const ApiKeyCreateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100 })),
    scopes: Type.Array(StringEnum(SCOPES), {
      minItems: 1,
      uniqueItems: true,
    }),
  },
  { additionalProperties: false },
);

/** A new key with its secret, shown only in the answer that creates it. */
export const CreatedApiKey = Type.Object({
  id: Type.String(),
  key: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
});
