import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

export interface ShippingZonesTable {
  id: string;
  store_id: string;
  name: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One row per (store, country): a country stands in at most one zone; `*` is the rest of the world. */
export interface ShippingZoneCountriesTable {
  store_id: string;
  country: string;
  zone_id: string;
  position: ColumnType<number, number | undefined, number>;
}

export interface ShippingRatesTable {
  id: string;
  store_id: string;
  zone_id: string;
  position: ColumnType<number, number | undefined, number>;
  name: string;
  price: number;
  min_subtotal: Nullable<number>;
  max_subtotal: Nullable<number>;
  min_weight_grams: Nullable<number>;
  max_weight_grams: Nullable<number>;
  free_above: Nullable<number>;
  delivery_days_min: Nullable<number>;
  delivery_days_max: Nullable<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TaxRegionsTable {
  id: string;
  store_id: string;
  country: string;
  /** ISO 3166-2 (`US-CA`); null for the whole country. */
  region: string | null;
  name: string;
  /** Thousandths of a percent: "7.25" % → 7250. */
  rate_millipercent: number;
  shipping_taxable: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    shipping_zones: ShippingZonesTable;
    shipping_zone_countries: ShippingZoneCountriesTable;
    shipping_rates: ShippingRatesTable;
    tax_regions: TaxRegionsTable;
  }
}
