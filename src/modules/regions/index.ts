import { registerConstraintConflict } from '../../platform/http/errors.js';
import { PLACE_KEY } from './tax-regions.repository.js';

// The services answer these with the place or country named; this is the net under them.
registerConstraintConflict(PLACE_KEY, 'a tax region for this country and region already exists');
registerConstraintConflict(
  'shipping_zone_countries_pkey',
  'a country stands in at most one shipping zone of a store',
);

export { createCachedRegions, REGIONS_TTL_MS } from './regions.cache.js';
export { readStoreRegions } from './regions.reads.js';
export { regionsRoutes } from './regions.routes.js';
export { createRegionsService, type RegionsService } from './regions.service.js';
export type { RegionsPort, ShippingRate, ShippingZone, StoreRegions, TaxRegion } from './regions.types.js';
