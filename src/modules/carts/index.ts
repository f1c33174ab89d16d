export { cartForStorefront, type StorefrontCart } from './carts.serializers.js';
export {
  type CartsService,
  cartExpiryTask,
  createCartsService,
  pruneExpiredCarts,
} from './carts.service.js';
export { cartsRoutes, customerCartRoutes } from './carts.storefront.routes.js';
