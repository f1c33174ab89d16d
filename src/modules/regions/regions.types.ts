import type { Executor } from '../../platform/db/database.js';

/**
 * What the one pricing path (orders/order-pricing) reads of a store's regions (contract §12), once
 * per store and cached: zones with their countries and rates, and tax regions. Amounts in minor
 * units; tax rates in thousandths of a percent ("7.25" % → 7250).
 */
export interface ShippingRate {
  id: string;
  zoneId: string;
  name: string;
  price: number;
  minSubtotal: number | null;
  maxSubtotal: number | null;
  minWeightGrams: number | null;
  maxWeightGrams: number | null;
  freeAbove: number | null;
  deliveryDaysMin: number | null;
  deliveryDaysMax: number | null;
}

export interface ShippingZone {
  id: string;
  name: string;
  /** ISO 3166-1 alpha-2 codes, or `['*']` for the rest of the world. */
  countries: string[];
  rates: ShippingRate[];
}

export interface TaxRegion {
  id: string;
  country: string;
  /** ISO 3166-2 (`US-CA`), or null for the whole country. */
  region: string | null;
  name: string;
  rateMillipercent: number;
  shippingTaxable: boolean;
}

export interface StoreRegions {
  zones: ShippingZone[];
  taxRegions: TaxRegion[];
}

/** How the pricing path reads a store's regions: cached per store, invalidated on every change. */
export interface RegionsPort {
  /**
   * `executor`: where a miss is read (the caller's transaction, as stores.getStore does), so a
   * checkout holding a connection never waits for a second one from the pool (200 parallel
   * checkouts would otherwise hold every connection while each waits for one more).
   */
  regionsOf(storeId: string, executor?: Executor): Promise<StoreRegions>;
}
