import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './app-deps.js';
import { type AdminService, createAdminService } from './modules/admin/index.js';
import { type AnalyticsService, createAnalyticsService } from './modules/analytics/index.js';
import { type CartsService, createCartsService } from './modules/carts/index.js';
import {
  type CategoriesService,
  createCategoriesService,
  createProductsService,
  type ProductsService,
} from './modules/catalog/index.js';
import { type CheckoutService, createCheckoutService } from './modules/checkout/index.js';
import {
  type CustomerAccountsService,
  createCustomerAccountsService,
  createRequestLimiter,
} from './modules/customer-accounts/index.js';
import { type CustomersService, createCustomersService } from './modules/customers/index.js';
import { createDiscountsService, type DiscountsService } from './modules/discounts/index.js';
import { createInventoryService, type InventoryService } from './modules/inventory/index.js';
import { createMediaStorage, type MediaStorage, rehostImages } from './modules/media/index.js';
import { createMobileService, type MobileService, queueOrderPush } from './modules/mobile/index.js';
import {
  type BackInStockService,
  createBackInStockService,
  createNotificationLog,
  createNotificationResender,
  createNotificationTemplates,
  endBackInStockSubscriptions,
  type NotificationLog,
  type NotificationResender,
  type NotificationTemplates,
  queueNotification,
} from './modules/notifications/index.js';
import { createOrderEditor, createOrdersService, type OrdersService } from './modules/orders/index.js';
import {
  createPaymentsService,
  createStripeAccounts,
  createStripeRefundGateway,
  type PaymentsService,
} from './modules/payments/index.js';
import { createRegionsService, type RegionsService } from './modules/regions/index.js';
import {
  createStoreLifecycle,
  createStoresService,
  type StoreLifecycle,
  type StoresService,
} from './modules/stores/index.js';
import { createWebhooksService, type WebhooksService } from './modules/webhooks/index.js';
import { createWishlistService, type WishlistService } from './modules/wishlist/index.js';
import { ChangeCounter } from './platform/change-counter.js';
import { createChangeFeed } from './platform/change-feed.js';
import { createMailer } from './platform/mail.js';
import { createSafeFetch } from './platform/net/safe-fetch.js';
import { appSecretOf } from './platform/secrets-file.js';

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
  /** Resends of the e-mail log's messages (the worker sends them). */
  notificationResends: NotificationResender;
  /** The log of the store's e-mails (GET /api/v1/notifications). */
  notificationLog: NotificationLog;
  /** The e-mail templates of contract §13 (their API; the worker renders with the same module's composer). */
  notificationTemplates: NotificationTemplates;
  /** "Email me when it's back": sign-ups, ended by inventory's restock port. */
  backInStock: BackInStockService;
  /** Suspension and deletion of a store (contract §14), for operators and the CLI. */
  storeLifecycle: StoreLifecycle;
}

/** What the routes are registered with: the services, and the few parts that are not one. */
export interface Wiring {
  services: Services;
  storage: MediaStorage;
  /** Bumped per store by the catalogue and stock services; the shop's page cache keys on it. */
  catalogChanges: ChangeCounter;
  orderEdits: ReturnType<typeof createOrderEditor>;
  admin: AdminService;
}

/**
 * The wiring of services, one block per module in dependency order: a new module is created here
 * (and added to `Services`), its routes registered in app-routes.ts. Connections the services own
 * (outbound HTTP, the change feed, the mailer, media storage) are closed with the server.
 */
export async function wireServices(deps: AppDeps, server: FastifyInstance): Promise<Wiring> {
  const { config, db } = deps;
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
  // E-mails are queued through ports: the notifications module reads orders and stock to render them;
  // stock that comes back ends its back-in-stock sign-ups in the same transaction.
  const inventory = createInventoryService(db, catalogChanges, {
    mailLowStock: queueNotification,
    restocked: endBackInStockSubscriptions,
  });
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
    mailOrder: queueNotification,
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
    timeoutMs: config.mailTimeoutMs,
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
    storeLifecycle: createStoreLifecycle({ db, stores }),
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
    notificationResends: createNotificationResender(db),
    notificationLog: createNotificationLog(db),
    notificationTemplates: createNotificationTemplates({
      db,
      publicUrl: config.publicUrl,
      stores,
      orders,
      products,
    }),
    // Limited as code requests are, by the same limiter.
    backInStock: createBackInStockService({
      db,
      catalog: products,
      limiter: createRequestLimiter(deps.rateLimitStore),
    }),
    webhooks: createWebhooksService({
      db,
      fetch: webhookFetch,
      appSecret: appSecretOf(config),
      timeoutMs: config.webhookTimeoutMs,
      guard: { allowPrivateUrls: config.allowPrivateUrls },
    }),
  };
  const orderEdits = createOrderEditor({ db, products, inventory, lockOrder: orders.lockOrder });

  const admin = createAdminService({ db, stores, rateLimits: deps.rateLimitStore });
  return { services, storage, catalogChanges, orderEdits, admin };
}
