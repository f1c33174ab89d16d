import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
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
import { storefrontRoutes } from './modules/storefront/index.js';
import { createStoresService, type StoresService, storesRoutes } from './modules/stores/index.js';
import {
  createWebhooksService,
  pendingDeliveries,
  type WebhooksService,
  webhooksRoutes,
} from './modules/webhooks/index.js';
import { createWishlistService, type WishlistService, wishlistRoutes } from './modules/wishlist/index.js';
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

export interface AppDeps {
  config: Config;
  db: Db;
  logger: Logger;
  rateLimitStore: RateLimitStore;
  /** Gateways of providers that hold the money, besides the built-in ones (tests add their own). */
  refundGateways?: RefundGateway[];
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
}

export interface App {
  server: FastifyInstance;
  mediaStorage: MediaStorage;
  services: Services;
  metrics: Metrics;
}

/**
 * /docs (swagger-ui) as strict as /admin: its scripts, styles and fonts from this origin only (no
 * inline script: the page's scripts are files), inline styles (React sets style attributes), images
 * from self and data: (its logo), "Try it out" calls and the document itself from self, no framing.
 */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/**
 * The `servers` entry of the OpenAPI document: PUBLIC_URL, the address clients use. A local
 * development address (the default `http://localhost:PORT`) names nothing to whoever reads a
 * published document or generates a client from it, so it becomes `/`: relative to where the
 * document is served, which is that same server when it comes from /openapi.json.
 */
export function documentServer(publicUrl: string): { url: string; description: string } {
  const host = new URL(publicUrl).hostname;
  const local =
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127\./.test(host) ||
    host === '[::1]' ||
    host === '0.0.0.0';
  return local
    ? { url: '/', description: 'The server that serves this document' }
    : { url: publicUrl, description: 'This deployment (PUBLIC_URL)' };
}

/** The composition root: platform plugins first, then each module's routes, listed explicitly. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, db } = deps;
  const server = createHttpServer(deps.logger as FastifyBaseLogger, {
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
  const stores = createStoresService(db, deps.logger, { publicUrl: config.publicUrl, watchDomains: true });
  const inventory = createInventoryService(db);
  const customers = createCustomersService(db, stores);
  const products = createProductsService({
    db,
    stores,
    inventory,
    media: {
      rehostImages: (urls) => rehostImages(urls, { storage, fetch: imageFetch, logger: deps.logger }),
    },
  });
  const categories = createCategoriesService(db);
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
  const orders = createOrdersService({
    db,
    stores,
    products,
    discounts,
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
  const checkout = createCheckoutService({ db, stores, products, discounts, customers, orders, payments });
  const services: Services = {
    stores,
    customers,
    inventory,
    products,
    categories,
    discounts,
    orders,
    checkout,
    carts: createCartsService({ db, stores, products, discounts, customers, checkout }),
    payments,
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
  const editItems = createOrderEditor({ db, products, inventory, lockOrder: orders.lockOrder });

  installRequestMetrics(server, metrics);
  metrics.setQueueDepthSource(() => pendingDeliveries(db));

  await server.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Emporium API',
        version: '1.0.0',
        description:
          'Merchant REST API (`/api/v1`, header `X-API-Key`), storefront, customer and mobile endpoints of Emporium.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [documentServer(config.publicUrl)],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          adminSession: { type: 'apiKey', in: 'cookie', name: 'emporium_admin' },
          customerSession: { type: 'apiKey', in: 'cookie', name: 'emporium_session' },
          customerBearer: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await server.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CONTENT_SECURITY_POLICY });

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
      await v1.register(ordersRoutes, { orders, editItems, stores, cursors });
      await v1.register(refundsRoutes, { orders, stores });
      await v1.register(analyticsRoutes, { analytics });
      await v1.register(webhooksRoutes, { webhooks: services.webhooks });
      await v1.register(paymentsRoutes, { payments });
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
  });

  await server.ready();
  return { server, services, metrics, mediaStorage: storage };
}
