export { wishlistRoutes } from './wishlist.customer.routes.js';
export { createWishlistService, type WishlistService } from './wishlist.service.js';
