import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { ShippingZone, StoreRegions, TaxRegion } from './regions.types.js';

/**
 * A store's zones (countries in the order given, rates by position) and tax regions, in one round
 * trip: the pricing path reads this once per store and keeps it cached, so no checkout queries it
 * per line.
 */
export async function readStoreRegions(db: Executor, storeId: string): Promise<StoreRegions> {
  const { rows } = await sql<{ zones: ShippingZone[] | null; tax_regions: TaxRegion[] | null }>`
    SELECT
      (SELECT json_agg(json_build_object(
          'id', z.id, 'name', z.name,
          'countries', (SELECT coalesce(json_agg(c.country ORDER BY c.position, c.country), '[]')
                          FROM shipping_zone_countries c WHERE c.store_id = z.store_id AND c.zone_id = z.id),
          'rates', (SELECT coalesce(json_agg(json_build_object(
                        'id', r.id, 'zoneId', r.zone_id, 'name', r.name, 'price', r.price,
                        'minSubtotal', r.min_subtotal, 'maxSubtotal', r.max_subtotal,
                        'minWeightGrams', r.min_weight_grams, 'maxWeightGrams', r.max_weight_grams,
                        'freeAbove', r.free_above, 'deliveryDaysMin', r.delivery_days_min,
                        'deliveryDaysMax', r.delivery_days_max) ORDER BY r.position, r.id), '[]')
                      FROM shipping_rates r WHERE r.store_id = z.store_id AND r.zone_id = z.id))
        ORDER BY z.created_at, z.id)
        FROM shipping_zones z WHERE z.store_id = ${storeId}) AS zones,
      (SELECT json_agg(json_build_object(
          'id', t.id, 'country', t.country, 'region', t.region, 'name', t.name,
          'rateMillipercent', t.rate_millipercent, 'shippingTaxable', t.shipping_taxable)
        ORDER BY t.country, t.region NULLS FIRST)
        FROM tax_regions t WHERE t.store_id = ${storeId}) AS tax_regions`.execute(db);
  const row = rows[0];
  return {
    // json_build_object renders bigint as a JSON number; amounts stay within MAX_AMOUNT (< 2^53).
    zones: row?.zones ?? [],
    taxRegions: row?.tax_regions ?? [],
  };
}
