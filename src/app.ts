import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { Logger } from 'pino';
import { installApiDocs } from './api-docs.js';
import type { Config } from './config.js';
import { adminDashboardRoutes, adminRoutes, createAdminService } from './modules/admin/index.js';
import { type AnalyticsService, analyticsRoutes, createAnalyticsService } from './modules/analytics/index.js';
import {
  type CartsService,
  cartsRoutes,
  createCartsService,
  customerCartRoutes,
} from './modules/carts/index.js';
import {
  type CategoriesService,
  categoriesRoutes,
  createCategoriesService,
  createProductsService,
  type ProductsService,
  productsRoutes,
} from './modules/catalog/index.js';
import { type CheckoutService, checkoutRoutes, createCheckoutService } from './modules/checkout/index.js';
import {
  type CustomerAccountsService,
  createCustomerAccountsService,
  customerAuthRoutes,
  customerLogoutRoutes,
} from './modules/customer-accounts/index.js';
import {
  type CustomersService,
  createCustomersService,
  customerAccountRoutes,
  customersRoutes,
} from './modules/customers/index.js';
import { createDiscountsService, type DiscountsService, discountsRoutes } from './modules/discounts/index.js';
import { createInventoryService, type InventoryService, inventoryRoutes } from './modules/inventory/index.js';
import {
  createMediaStorage,
  localMediaRoot,
  type MediaStorage,
  mediaRoutes,
  rehostImages,
} from './modules/media/index.js';
import {
  createMobileService,
  type MobileService,
  mobileRoutes,
  queueOrderPush,
} from './modules/mobile/index.js';
import { createNotificationResender, notificationResendRoutes } from './modules/notifications/index.js';
import {
  createOrderEditor,
  createOrdersService,
  customerOrdersRoutes,
  type OrdersService,
  ordersRoutes,
  type RefundGateway,
  refundsRoutes,
} from './modules/orders/index.js';
import {
  createPaymentsService,
  createStripeAccounts,
  createStripeRefundGateway,
  type PaymentsService,
  paymentsRoutes,
  stripeWebhookRoutes,
} from './modules/payments/index.js';
import { createRegionsService, type RegionsService, regionsRoutes } from './modules/regions/index.js';
import { storefrontRoutes } from './modules/storefront/index.js';
import {
  createStoresService,
  type StoresService,
  storeApiRoutes,
  storesRoutes,
} from './modules/stores/index.js';
import {
  createWebhooksService,
  pendingDeliveries,
  type WebhooksService,
  webhooksRoutes,
} from './modules/webhooks/index.js';
import { createWishlistService, type WishlistService, wishlistRoutes } from './modules/wishlist/index.js';
import { ChangeCounter } from './platform/change-counter.js';
import { createChangeFeed } from './platform/change-feed.js';
import type { Db } from './platform/db/database.js';
import { createCursorCodec } from './platform/http/cursor.js';
import { installCustomerAuth } from './platform/http/customer-auth.js';
import { installIdempotency } from './platform/http/idempotency.js';
import { installMerchantAuth } from './platform/http/merchant-auth.js';
import type { RateLimitStore } from './platform/http/rate-limit.js';
import { trustedOriginsOf } from './platform/http/same-origin.js';
import { createHttpServer } from './platform/http/server.js';
import { createMailer } from './platform/mail.js';
import { createMetrics, installRequestMetrics, type Metrics } from './platform/metrics.js';
import { createSafeFetch } from './platform/net/safe-fetch.js';
import { operationsRoutes } from './platform/operations.routes.js';
import { appSecretOf } from './platform/secrets-file.js';
import { loadShopAssets, routedUrl, type ShopDeps, shopRoutes, shopRoutingErrorPage } from './shop/index.js';

export interface AppDeps {
  config: Config;
  db: Db;
  logger: Logger;
  rateLimitStore: RateLimitStore;
  /** Gateways of providers that hold the money, besides the built-in ones (tests add their own). */
  refundGateways?: RefundGateway[];
  /** Keep the custom-domain directory current (default true; not for the OpenAPI build or a CLI command). */
  watchCustomDomains?: boolean;
  /**
   * The pool behind `db`, for a serving process: catalogue changes are exchanged with the other
   * processes of the database (change-feed.ts), so their cached storefront answers and shop pages
   * follow this one's changes and this one's follow theirs. Without it only this process's own
   * changes drop its cached answers; others' show within the caches' TTL.
   */
  pool?: pg.Pool;
}

export interface Services {
  stores: StoresService;
  customers: CustomersService;
  inventory: InventoryService;
  products: ProductsService;
  categories: CategoriesService;
  discounts: DiscountsService;
  orders: OrdersService;
  checkout: CheckoutService;
  carts: CartsService;
  webhooks: WebhooksService;
  accounts: CustomerAccountsService;
  analytics: AnalyticsService;
  wishlist: WishlistService;
  mobile: MobileService;
  payments: PaymentsService;
  /** Zones and tax regions; its `regionsOf` is the pricing path's cached RegionsPort. */
  regions: RegionsService;
}

export interface App {
  server: FastifyInstance;
  mediaStorage: MediaStorage;
  services: Services;
  metrics: Metrics;
}

/** The composition root: platform plugins first, then each module's routes, listed explicitly. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, db } = deps;
  // Set once the shop's dependencies exist below; asked at request time only.
  let shopRoutingError: ReturnType<typeof shopRoutingErrorPage> | undefined;
  const server = createHttpServer(deps.logger as FastifyBaseLogger, {
    routingErrorPage: (error, request, reply) => shopRoutingError?.(error, request, reply) ?? false,
    // Asked at request time only, once `stores` below exists.
    rewriteUrl: (url, host) => routedUrl(url, host, (name) => stores.slugOfCustomDomain(name)),
    trustProxy: config.trustProxy,
    limits: config.httpLimits,
    https: config.publicUrl.startsWith('https:'),
  });

  const metrics = createMetrics();
  const storage = createMediaStorage({
    driver: config.media.driver,
    dataDir: config.dataDir,
    publicUrl: config.publicUrl,
    s3: config.media.s3,
  });
  const imageFetch = createSafeFetch({
    allowPrivateUrls: config.allowPrivateUrls,
    userAgent: 'Emporium-Images/1',
  });
  const webhookFetch = createSafeFetch({
    allowPrivateUrls: config.allowPrivateUrls,
    userAgent: 'Emporium-Webhooks/1',
  });
  server.addHook('onClose', async () => {
    stores.stopCustomDomains();
    await imageFetch.close();
    await webhookFetch.close();
    await storage.close();
  });
  const stores = createStoresService(db, deps.logger, {
    publicUrl: config.publicUrl,
    watchDomains: deps.watchCustomDomains ?? true,
    // orders is built below (it needs stores); this runs only at a settings change or read.
    hasOrders: (storeId) => orders.hasOrders(storeId),
  });
  // Bumped per store by the catalogue and stock services; the shop's page cache keys on it.
  const catalogChanges = new ChangeCounter();
  // Bumped by zones', rates' and tax regions' writes; the regions' cache keys on it (not on sales).
  const regionChanges = new ChangeCounter();
  if (deps.pool) {
    const counters = { catalog: catalogChanges, regions: regionChanges };
    const feed = createChangeFeed({ pool: deps.pool, counters, logger: deps.logger });
    await feed.start();
    server.addHook('onClose', () => feed.close());
  }
  const regions = createRegionsService({ db, stores, changes: regionChanges });
  const inventory = createInventoryService(db, catalogChanges);
  const customers = createCustomersService(db, stores);
  const products = createProductsService({
    db,
    stores,
    inventory,
    changes: catalogChanges,
    media: {
      rehostImages: (urls) => rehostImages(urls, { storage, fetch: imageFetch, logger: deps.logger }),
    },
  });
  const categories = createCategoriesService(db, catalogChanges);
  const discounts = createDiscountsService({
    db,
    stores,
    catalog: {
      existingProductIds: (storeId, ids) => products.existingIds(storeId, ids),
      existingCategoryIds: (storeId, ids) => categories.existingIds(storeId, ids),
    },
  });
  // Stripe accounts are shared by the refund gateway (inside orders) and the payments service.
  const stripeAccounts = createStripeAccounts({ appSecret: appSecretOf(config), api: config.stripe });
  // What the one pricing path (orders' priceCart) reads, for orders, checkout and carts.
  const pricing = { stores, products, discounts, regions };
  const orders = createOrdersService({
    db,
    ...pricing,
    customers,
    inventory,
    notifyBuyer: queueOrderPush,
    // A test's own gateway comes first: the first gateway that handles a method refunds it.
    refundGateways: [
      ...(deps.refundGateways ?? []),
      createStripeRefundGateway({ db, accounts: stripeAccounts, logger: deps.logger }),
    ],
  });
  const mailer = createMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    logger: deps.logger,
    production: config.production,
  });
  server.addHook('onClose', () => mailer.close());
  const accounts = createCustomerAccountsService({
    db,
    customers,
    mailer,
    rateLimits: deps.rateLimitStore,
    appSecret: appSecretOf(config),
    logger: deps.logger,
  });
  const analytics = createAnalyticsService({ db, stores, refundsBetween: orders.refundedBetween });
  const payments = createPaymentsService({
    db,
    stores,
    orders,
    accounts: stripeAccounts,
    appSecret: appSecretOf(config),
    publicUrl: config.publicUrl,
    stripe: config.stripe,
    holdMinutes: config.paymentHoldMinutes,
    logger: deps.logger,
  });
  const checkout = createCheckoutService({ db, ...pricing, customers, orders, payments });
  const services: Services = {
    stores,
    customers,
    inventory,
    products,
    categories,
    discounts,
    orders,
    checkout,
    carts: createCartsService({ db, ...pricing, customers, checkout }),
    payments,
    regions,
    accounts,
    analytics,
    wishlist: createWishlistService({ db, products, stores }),
    mobile: createMobileService(db),
    webhooks: createWebhooksService({
      db,
      fetch: webhookFetch,
      appSecret: appSecretOf(config),
      timeoutMs: config.webhookTimeoutMs,
      guard: { allowPrivateUrls: config.allowPrivateUrls },
    }),
  };
  const orderEdits = createOrderEditor({ db, products, inventory, lockOrder: orders.lockOrder });

  installRequestMetrics(server, metrics);
  metrics.setQueueDepthSource(() => pendingDeliveries(db));

  await installApiDocs(server, config.publicUrl);

  await server.register(operationsRoutes, { db, metrics });

  if (config.media.driver === 'local') {
    await server.register(mediaRoutes, { root: localMediaRoot(config.dataDir) });
  }

  const admin = createAdminService({ db, stores, rateLimits: deps.rateLimitStore });
  const trustedOrigins = trustedOriginsOf(config.publicUrl, stores.customDomainOrigins);
  const cursors = createCursorCodec(appSecretOf(config));
  const merchantAuth = {
    resolveApiKey: (raw: string) => services.stores.resolveApiKey(raw),
    rateLimit: { store: deps.rateLimitStore, perMinute: config.rateLimitPerMinute },
    admin: { resolveSession: (token: string) => admin.resolveSession(token), trustedOrigins },
  };
  await server.register(
    async (v1) => {
      installMerchantAuth(v1, merchantAuth);
      installIdempotency(v1, db);
      await v1.register(customersRoutes, { customers: services.customers, cursors });
      await v1.register(productsRoutes, { products: services.products, cursors });
      await v1.register(categoriesRoutes, { categories: services.categories });
      await v1.register(inventoryRoutes, { inventory: services.inventory });
      await v1.register(discountsRoutes, { discounts: services.discounts });
      await v1.register(ordersRoutes, { orders, orderEdits, stores, cursors });
      await v1.register(refundsRoutes, { orders, stores });
      await v1.register(analyticsRoutes, { analytics });
      await v1.register(webhooksRoutes, { webhooks: services.webhooks });
      await v1.register(paymentsRoutes, { payments });
      await v1.register(regionsRoutes, { regions });
      await v1.register(storeApiRoutes, { stores });
      await v1.register(notificationResendRoutes, { resender: createNotificationResender(db) });
    },
    { prefix: '/api/v1' },
  );
  const secureCookies = config.publicUrl.startsWith('https:');
  await server.register(adminRoutes, {
    prefix: '/api/admin',
    admin,
    merchantAuth,
    secureCookies,
    signedInRoutes: async (signedIn) => {
      await signedIn.register(storesRoutes, { stores });
    },
  });
  await server.register(adminDashboardRoutes);
  await server.register(customerAuthRoutes, {
    prefix: '/api/storefront',
    accounts: services.accounts,
    stores,
    secureCookies,
  });
  const customerAuth = {
    resolveSession: (token: string) => services.accounts.resolveSession(token),
    trustedOrigins,
    rateLimits: deps.rateLimitStore,
  };
  await server.register(async (customerApi) => {
    installCustomerAuth(customerApi, customerAuth);
    await customerApi.register(
      async (account) => {
        await account.register(customerAccountRoutes, { customers });
        await account.register(customerLogoutRoutes, { accounts: services.accounts, secureCookies });
        await account.register(customerOrdersRoutes, { orders });
        await account.register(wishlistRoutes, { wishlist: services.wishlist });
        await account.register(customerCartRoutes, { carts: services.carts });
      },
      { prefix: '/api/customer' },
    );
    await customerApi.register(mobileRoutes, { prefix: '/api/mobile', mobile: services.mobile });
  });
  await server.register(checkoutRoutes, {
    prefix: '/api/storefront',
    db,
    stores,
    checkout: services.checkout,
    customerAuth,
    secureCookies,
  });
  await server.register(cartsRoutes, {
    prefix: '/api/storefront',
    stores,
    carts: services.carts,
    customerAuth,
    secureCookies,
  });
  await server.register(stripeWebhookRoutes, { prefix: '/api/payments/stripe', payments });
  await server.register(storefrontRoutes, {
    prefix: '/api/storefront',
    payments,
    stores: services.stores,
    products: services.products,
    categories: services.categories,
    merchantAuth,
    catalogChanges,
  });
  const shopDeps: ShopDeps = {
    ...services,
    customerAuth,
    trustedOrigins,
    publicUrl: config.publicUrl,
    secureCookies,
    production: config.production,
    catalogChanges,
    assets: loadShopAssets(undefined, (message) => deps.logger.warn(message)),
  };
  shopRoutingError = shopRoutingErrorPage(shopDeps);
  await server.register(shopRoutes, shopDeps);

  await server.ready();
  return { server, services, metrics, mediaStorage: storage };
}
