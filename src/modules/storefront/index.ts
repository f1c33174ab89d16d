export { DEFAULT_STORE_COLORS, storeColors } from './storefront.colors.js';
export { storefrontRoutes } from './storefront.routes.js';
export { SlugParams, StorefrontProductSummary } from './storefront.schemas.js';
