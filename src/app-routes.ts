import type { FastifyInstance } from 'fastify';
import { installApiDocs } from './api-docs.js';
import type { AppDeps } from './app-deps.js';
import type { Wiring } from './app-services.js';
import { adminDashboardRoutes, adminRoutes } from './modules/admin/index.js';
import { analyticsRoutes } from './modules/analytics/index.js';
import { auditRoutes } from './modules/audit/index.js';
import { cartsRoutes, customerCartRoutes } from './modules/carts/index.js';
import { categoriesRoutes, productsRoutes } from './modules/catalog/index.js';
import { checkoutRoutes } from './modules/checkout/index.js';
import { customerAuthRoutes, customerLogoutRoutes } from './modules/customer-accounts/index.js';
import { customerAccountRoutes, customersRoutes } from './modules/customers/index.js';
import { discountsRoutes } from './modules/discounts/index.js';
import { inventoryRoutes } from './modules/inventory/index.js';
import { localMediaRoot, mediaRoutes } from './modules/media/index.js';
import { mobileRoutes } from './modules/mobile/index.js';
import {
  backInStockRoutes,
  notificationLogRoutes,
  notificationResendRoutes,
  notificationTemplatesRoutes,
} from './modules/notifications/index.js';
import { operatorRoutes } from './modules/operators/index.js';
import { customerOrdersRoutes, ordersRoutes, refundsRoutes } from './modules/orders/index.js';
import { paymentsRoutes, stripeWebhookRoutes } from './modules/payments/index.js';
import { regionsRoutes } from './modules/regions/index.js';
import { onboardingRoutes, signupRoutes } from './modules/signup/index.js';
import { storefrontRoutes } from './modules/storefront/index.js';
import { domainCheckRoutes, storeApiRoutes, storesRoutes } from './modules/stores/index.js';
import { invitationRoutes, teamRoutes } from './modules/team/index.js';
import { webhooksRoutes } from './modules/webhooks/index.js';
import { wishlistRoutes } from './modules/wishlist/index.js';
import { createCursorCodec } from './platform/http/cursor.js';
import { installCustomerAuth } from './platform/http/customer-auth.js';
import { installIdempotency } from './platform/http/idempotency.js';
import { installMerchantAuth } from './platform/http/merchant-auth.js';
import { trustedOriginsOf } from './platform/http/same-origin.js';
import type { Metrics } from './platform/metrics.js';
import { operationsRoutes } from './platform/operations.routes.js';
import { appSecretOf } from './platform/secrets-file.js';
import { loadShopAssets, type ShopDeps, shopRoutes, shopRoutingErrorPage } from './shop/index.js';

/**
 * The registration of routes, one line per module and audience: platform routes first, then the
 * merchant API (`/api/v1`, API key or admin session), the dashboard's API, the customer and mobile
 * APIs, the storefront, and the shop. Returns the shop's page for requests no route matched.
 */
export async function registerRoutes(
  server: FastifyInstance,
  deps: AppDeps,
  wiring: Wiring,
  metrics: Metrics,
): Promise<ReturnType<typeof shopRoutingErrorPage>> {
  const { config, db } = deps;
  const { services, catalogChanges, orderEdits, admin } = wiring;
  const { stores, orders, payments, customers, analytics, regions } = services;

  await installApiDocs(server, config.publicUrl);

  await server.register(operationsRoutes, { db, metrics });

  if (config.media.driver === 'local') {
    await server.register(mediaRoutes, { root: localMediaRoot(config.dataDir) });
  }

  const trustedOrigins = trustedOriginsOf(config.publicUrl, stores.customDomainOrigins);
  const cursors = createCursorCodec(appSecretOf(config));
  // A suspended store's keys and sessions are refused, a deleting store's are gone (storeLifecycle).
  const { storeLifecycle } = services;
  const merchantAuth = {
    resolveApiKey: async (raw: string) =>
      storeLifecycle.admitMerchant(await services.stores.resolveApiKey(raw)),
    rateLimit: { store: deps.rateLimitStore, perMinute: config.rateLimitPerMinute },
    admin: {
      resolveSession: async (token: string) =>
        storeLifecycle.admitMerchant(await admin.resolveSession(token)),
      trustedOrigins,
    },
    // Every write behind this guard (/api/v1, /api/admin) leaves its audit row (off only in the audit bench's baseline).
    audit: deps.auditLog === 'off' ? undefined : { write: services.auditLog.write, db },
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
      await v1.register(notificationResendRoutes, { resender: services.notificationResends });
      await v1.register(notificationLogRoutes, { log: services.notificationLog });
      await v1.register(notificationTemplatesRoutes, { templates: services.notificationTemplates });
      await v1.register(auditRoutes, { auditLog: services.auditLog, cursors });
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
      await signedIn.register(onboardingRoutes, { onboarding: services.onboarding });
      await signedIn.register(teamRoutes, { team: services.team });
    },
  });
  await server.register(signupRoutes, {
    prefix: '/api/admin',
    signup: services.signup,
    admin,
    trustedOrigins,
    secureCookies,
  });
  await server.register(invitationRoutes, {
    prefix: '/api/admin',
    team: services.team,
    trustedOrigins,
    secureCookies,
  });
  await server.register(adminDashboardRoutes);
  await server.register(adminDashboardRoutes, { mount: '/operator', index: 'operator.html' });
  await server.register(operatorRoutes, {
    prefix: '/api/operator',
    operators: services.operators,
    trustedOrigins: trustedOriginsOf(config.publicUrl),
    secureCookies,
    cursors,
  });
  await server.register(domainCheckRoutes, {
    prefix: '/api/operator',
    stores,
    rateLimits: deps.rateLimitStore,
  });
  await server.register(customerAuthRoutes, {
    prefix: '/api/storefront',
    accounts: services.accounts,
    stores,
    secureCookies,
  });
  const customerAuth = {
    resolveSession: async (token: string) =>
      storeLifecycle.admitShopper(await services.accounts.resolveSession(token)),
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
  await server.register(backInStockRoutes, {
    prefix: '/api/storefront',
    stores,
    backInStock: services.backInStock,
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
  await server.register(shopRoutes, shopDeps);
  return shopRoutingErrorPage(shopDeps);
}
