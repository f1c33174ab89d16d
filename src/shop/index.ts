// First: React's production build must be loaded before any page module imports React.
import './react-production.js';

export { loadShopAssets } from './assets.js';
export { routedUrl } from './custom-domains.js';
export { shopRoutes } from './shop.routes.js';
export type { ShopDeps } from './shop-deps.js';
