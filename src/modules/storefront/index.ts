export { storefrontRoutes } from './storefront.routes.js';
export { SlugParams, StorefrontProductSummary } from './storefront.schemas.js';
