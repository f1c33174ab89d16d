import './shop.css';
import { showWishlistState } from './wishlist';

// Shared by every page: the stylesheet above. Interactive parts live in their own entries
// (product.ts, cart.ts, checkout.ts…) so a page loads only what it uses.
document.documentElement.classList.add('js');
void showWishlistState();
