import type { CartsService } from '../modules/carts/index.js';
import type { CategoriesService, ProductsService } from '../modules/catalog/index.js';
import type { CheckoutService } from '../modules/checkout/index.js';
import type { CustomerAccountsService } from '../modules/customer-accounts/index.js';
import type { CustomersService } from '../modules/customers/index.js';
import type { BackInStockService } from '../modules/notifications/index.js';
import type { OrdersService } from '../modules/orders/index.js';
import type { PaymentsService } from '../modules/payments/index.js';
import type { RegionsPort } from '../modules/regions/index.js';
import type { StoresService } from '../modules/stores/index.js';
import type { WishlistService } from '../modules/wishlist/index.js';
import type { ChangeCounter } from '../platform/change-counter.js';
import type { CustomerAuthOptions } from '../platform/http/customer-auth.js';
import type { TrustedOrigins } from '../platform/http/same-origin.js';
import type { ShopAssets } from './assets.js';

/** What the shop's pages read and write through: the same services as the storefront API. */
export interface ShopDeps {
  stores: StoresService;
  products: ProductsService;
  categories: CategoriesService;
  carts: CartsService;
  checkout: CheckoutService;
  payments: PaymentsService;
  accounts: CustomerAccountsService;
  customers: CustomersService;
  orders: OrdersService;
  wishlist: WishlistService;
  /** "Email me when it's back" on sold-out product pages. */
  backInStock: BackInStockService;
  /** Zones and tax regions, cached per store: whether the checkout offers shipping options. */
  regions: RegionsPort;
  customerAuth: CustomerAuthOptions;
  trustedOrigins: TrustedOrigins;
  publicUrl: string;
  secureCookies: boolean;
  production: boolean;
  assets: ShopAssets;
  /** Per-store versions of the catalogue, bumped by its services: keys of the page cache. */
  catalogChanges: ChangeCounter;
  /** How long a rendered public page is reused (page-cache.ts); 5 s by default, 0 disables. */
  pageCacheTtlMs?: number;
}
