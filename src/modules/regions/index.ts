export { readStoreRegions } from './regions.reads.js';
export type { RegionsPort, ShippingRate, ShippingZone, StoreRegions, TaxRegion } from './regions.types.js';
