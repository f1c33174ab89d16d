import { type Static, Type } from 'typebox';
import { Nullable, PageQuery } from '../../platform/http/envelopes.js';
import { moneyInput } from '../../platform/http/money-input.js';
import { ERROR_HINT } from '../../platform/http/validation-messages.js';

/** The most rates a zone has, and countries it lists (ISO 3166-1 assigns 249). */
export const MAX_RATES = 50;
export const MAX_COUNTRIES = 300;
/** Heavier than any parcel, and within the integer column. */
const MAX_GRAMS = 1_000_000_000;
const MAX_DAYS = 365;

const O = Type.Optional;
const Timestamp = Type.String({ format: 'date-time' });
const Name = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '\\S',
    description,
    [ERROR_HINT]: 'must be 1 to 100 characters, not only spaces',
  });
const Grams = (description: string) =>
  Nullable(Type.Integer({ minimum: 0, maximum: MAX_GRAMS, description }));
const Days = (description: string) => Nullable(Type.Integer({ minimum: 0, maximum: MAX_DAYS, description }));

const CountryCode = Type.String({
  pattern: '^([A-Za-z]{2}|\\*)$',
  description: 'An ISO 3166-1 alpha-2 code (any case; stored upper case), or "*" for the rest of the world',
  [ERROR_HINT]: 'must be an ISO 3166-1 alpha-2 country code such as "DE", or "*"',
});
const Countries = Type.Array(CountryCode, {
  minItems: 1,
  maxItems: MAX_COUNTRIES,
  description:
    'The countries of the zone, each in at most one zone of the store (409 otherwise); or ["*"], the rest of the world (one such zone per store)',
});

const rateFields = {
  name: Name('What the buyer picks ("Standard", "Express")'),
  price: moneyInput('The rate in the store currency ("4.90")'),
  min_subtotal: O(Nullable(moneyInput('Offered from this discounted subtotal on'))),
  max_subtotal: O(Nullable(moneyInput('Offered up to this discounted subtotal'))),
  min_weight_grams: O(Grams('Offered from this total weight on')),
  max_weight_grams: O(Grams('Offered up to this total weight')),
  free_above: O(Nullable(moneyInput('The rate is 0 at or above this discounted subtotal'))),
  delivery_days_min: O(Days('Delivery estimate, fewest days')),
  delivery_days_max: O(Days('Delivery estimate, most days')),
};

const RateCreate = Type.Object(rateFields, { additionalProperties: false });
const RateUpdate = Type.Object(
  {
    id: O(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'A rate of this zone: it keeps its id; without one, a new rate',
      }),
    ),
    ...rateFields,
  },
  { additionalProperties: false },
);

export const ZoneCreateBody = Type.Object(
  {
    name: Name('The zone\'s name ("Europe")'),
    countries: Countries,
    rates: O(Type.Array(RateCreate, { maxItems: MAX_RATES })),
  },
  { additionalProperties: false },
);

export const ZoneUpdateBody = Type.Object(
  {
    name: O(Name('The zone\'s name ("Europe")')),
    countries: O(Countries),
    rates: O(
      Type.Array(RateUpdate, {
        maxItems: MAX_RATES,
        description: 'Replaces the list: a rate given with its `id` keeps it, the rates left out are deleted',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export type RateInput = Static<typeof RateUpdate>;
export type ZoneCreateInput = Static<typeof ZoneCreateBody>;
export type ZoneUpdateInput = Static<typeof ZoneUpdateBody>;

const MoneyOut = Type.String({ description: 'Decimal amount in the store currency' });

export const ShippingRate = Type.Object({
  id: Type.String(),
  name: Type.String(),
  price: MoneyOut,
  min_subtotal: Nullable(MoneyOut),
  max_subtotal: Nullable(MoneyOut),
  min_weight_grams: Nullable(Type.Integer()),
  max_weight_grams: Nullable(Type.Integer()),
  free_above: Nullable(MoneyOut),
  delivery_days_min: Nullable(Type.Integer()),
  delivery_days_max: Nullable(Type.Integer()),
});

export const ShippingZone = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    countries: Type.Array(Type.String()),
    rates: Type.Array(ShippingRate),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'ShippingZone' },
);

const TaxRate = Type.Union(
  [Type.String({ pattern: '^\\d{1,3}(\\.\\d+)?$' }), Type.Number({ minimum: 0, maximum: 100 })],
  {
    description:
      'A percentage from 0 to 100 with at most 3 decimals ("19", "7.25"); a number is accepted too',
    [ERROR_HINT]: 'must be a percentage from 0 to 100 with at most 3 decimals, such as "7.25"',
  },
);
const taxRegionFields = {
  country: Type.String({
    pattern: '^[A-Za-z]{2}$',
    description: 'ISO 3166-1 alpha-2 (any case; stored upper case)',
    [ERROR_HINT]: 'must be an ISO 3166-1 alpha-2 country code such as "US"',
  }),
  region: Nullable(
    Type.String({
      pattern: '^([A-Za-z]{2}-)?[A-Za-z0-9]{1,3}$',
      description:
        'An ISO 3166-2 subdivision of the country, as its code ("US-CA") or the part after the hyphen ("CA"), any case; stored as the full code. null: the whole country',
      [ERROR_HINT]: 'must be an ISO 3166-2 subdivision code such as "US-CA" (or "CA"), or null',
    }),
  ),
  name: Name('Shown on tax lines ("VAT", "Sales tax"); default "Tax"'),
  rate: TaxRate,
  shipping_taxable: Type.Boolean({ description: 'Whether shipping is taxed at this rate (default false)' }),
};

export const TaxRegionCreateBody = Type.Object(
  {
    country: taxRegionFields.country,
    region: O(taxRegionFields.region),
    name: O(taxRegionFields.name),
    rate: taxRegionFields.rate,
    shipping_taxable: O(taxRegionFields.shipping_taxable),
  },
  { additionalProperties: false },
);

export const TaxRegionUpdateBody = Type.Partial(
  Type.Object(taxRegionFields, { additionalProperties: false }),
  {
    additionalProperties: false,
    minProperties: 1,
  },
);

export type TaxRegionCreateInput = Static<typeof TaxRegionCreateBody>;
export type TaxRegionUpdateInput = Static<typeof TaxRegionUpdateBody>;

export const TaxRegion = Type.Object(
  {
    id: Type.String(),
    country: Type.String(),
    region: Nullable(Type.String()),
    name: Type.String(),
    rate: Type.String({ description: 'A percentage without trailing zeros ("19", "7.25")' }),
    shipping_taxable: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'TaxRegion' },
);

export const TaxRegionListQuery = Type.Object({
  ...PageQuery,
  country: O(
    Type.String({
      pattern: '^[A-Za-z]{2}$',
      description: 'Only the regions of this country',
      [ERROR_HINT]: 'must be an ISO 3166-1 alpha-2 country code such as "US"',
    }),
  ),
});

export const ZoneListQuery = Type.Object(PageQuery);
