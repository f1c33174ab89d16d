export { loadShopAssets } from './assets.js';
export { routedUrl } from './custom-domains.js';
export { shopRoutes, shopRoutingErrorPage } from './shop.routes.js';
export type { ShopDeps } from './shop-deps.js';
