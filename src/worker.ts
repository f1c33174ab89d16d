import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { pruneExpiredAdminSessions } from './modules/admin/index.js';
import { auditLogRetention } from './modules/audit/index.js';
import { cartExpiryTask } from './modules/carts/index.js';
import { createCategoriesService, createProductsService } from './modules/catalog/index.js';
import { pruneExpiredLogins } from './modules/customer-accounts/index.js';
import { createCustomersService } from './modules/customers/index.js';
import { createDiscountsService } from './modules/discounts/index.js';
import { createInventoryService } from './modules/inventory/index.js';
import { createMediaStorage } from './modules/media/index.js';
import {
  createFcmProvider,
  createLogPushProvider,
  pushLogRetention,
  pushNotificationJobs,
  queueOrderPush,
} from './modules/mobile/index.js';
import {
  createNotificationComposer,
  endBackInStockSubscriptions,
  notificationJobs,
  notificationLogRetention,
  queueNotification,
} from './modules/notifications/index.js';
import { pruneExpiredOperatorSessions } from './modules/operators/index.js';
import { createOrdersService } from './modules/orders/index.js';
import { createStripeAccounts, paymentHoldExpiryJobs } from './modules/payments/index.js';
import { readStoreRegions } from './modules/regions/index.js';
import { pruneExpiredSignups } from './modules/signup/index.js';
import { createStoresService, type StoresService, storeDeletionJobs } from './modules/stores/index.js';
import { webhookDeliveryJobs, webhookLogRetention } from './modules/webhooks/index.js';
import type { Db } from './platform/db/database.js';
import { pruneIdempotencyKeys } from './platform/http/idempotency.js';
import { createJobRunner } from './platform/jobs.js';
import { createMailer } from './platform/mail.js';
import type { Metrics } from './platform/metrics.js';
import { createSafeFetch } from './platform/net/safe-fetch.js';
import { appSecretOf } from './platform/secrets-file.js';

/** Expired rows are pruned this often (± 10 %), and once at start. */
const PRUNE_EVERY_MS = 5 * 60_000;
/** Rows deleted per statement while pruning. */
const PRUNE_BATCH = 1000;

/**
 * Deletes expired rows: idempotency keys past their 24 hours, login codes a day after they expired,
 * customer, dashboard and operator sessions past their expiry, sign-up requests a day after they expired. Each table through its owner, in statements of
 * at most `batchSize` rows (SKIP LOCKED: workers pruning at the same time take different rows).
 * Returns, per table, the rows deleted and the statements run.
 */
export async function pruneExpiredRows(db: Db, options: { batchSize?: number; signal?: AbortSignal } = {}) {
  const batches = { batchSize: options.batchSize ?? PRUNE_BATCH, signal: options.signal };
  return {
    ...(await pruneIdempotencyKeys(db, batches)),
    ...(await pruneExpiredLogins(db, batches)),
    ...(await pruneExpiredAdminSessions(db, batches)),
    ...(await pruneExpiredSignups(db, batches)),
    ...(await pruneExpiredOperatorSessions(db, batches)),
  };
}

/**
 * The orders and products services as the worker needs them (releasing and settling orders whose
 * card payment is awaited, reading what an e-mail shows): the same composition as the app's,
 * without what only requests use (image re-hosting).
 */
function workerServices(db: Db, stores: StoresService) {
  // A released hold puts stock back: back-in-stock sign-ups end with it, as in the app.
  const inventory = createInventoryService(db, undefined, {
    mailLowStock: queueNotification,
    restocked: endBackInStockSubscriptions,
  });
  const customers = createCustomersService(db, stores);
  const products = createProductsService({
    db,
    stores,
    inventory,
    media: {
      rehostImages: async () => {
        throw new Error('the worker does not re-host images');
      },
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
  const orders = createOrdersService({
    db,
    stores,
    products,
    discounts,
    // The worker places no orders; its orders service never prices one.
    regions: { regionsOf: (storeId) => readStoreRegions(db, storeId) },
    customers,
    inventory,
    notifyBuyer: queueOrderPush,
    mailOrder: queueNotification,
    // The worker settles or releases holds; it never refunds.
    refundGateways: [],
  });
  return { orders, products };
}

export interface BackgroundWorker {
  /** Stops claiming work, finishes what is in flight, records it, closes its connections. */
  stop(): Promise<void>;
}

/**
 * The background worker (webhook deliveries, e-mail, push notifications, pruning of expired rows), inside
 * `emporium serve` or alone as `emporium worker`. Several may run against one database: they claim
 * work, and take rows to prune, with SKIP LOCKED.
 */
export function startBackgroundWorker(input: {
  config: Config;
  db: Db;
  pool: pg.Pool;
  logger: Logger;
  metrics?: Metrics;
  /** Pruning of expired rows: how often (ms) and how many rows per statement. */
  prune?: { everyMs?: number; batchSize?: number };
  /** The store deletion job's lease and rows per statement (tests make them short). */
  storeDeletion?: { leaseMs?: number; batchSize?: number };
  /** Deletion of carts unchanged for 30 days: how often (ms; hourly by default). */
  cartExpiry?: { everyMs?: number };
}): BackgroundWorker {
  const { config, logger } = input;
  // As many connections per receiver as deliveries the webhook worker keeps in flight (64).
  const fetch = createSafeFetch({
    allowPrivateUrls: config.allowPrivateUrls,
    userAgent: 'Emporium-Webhooks/1',
    connectionsPerOrigin: 64,
  });
  const mailer = createMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    logger,
    production: config.production,
    timeoutMs: config.mailTimeoutMs,
  });
  const stores = createStoresService(input.db, logger);
  const { orders, products } = workerServices(input.db, stores);
  const runner = createJobRunner({ pool: input.pool, logger, registry: input.metrics?.registry });
  runner.add(
    webhookDeliveryJobs({
      db: input.db,
      fetch,
      logger,
      appSecret: appSecretOf(config),
      retrySchedule: config.webhookRetrySchedule,
      timeoutMs: config.webhookTimeoutMs,
      disableAfterHours: config.webhookDisableAfterHours,
      onAttempt: (outcome) => input.metrics?.deliveries.inc({ outcome }),
      async onDisabled(webhook, reason) {
        const to = await stores.adminEmails(webhook.store_id);
        if (to.length === 0) return;
        await mailer.send({
          to,
          subject: 'Emporium: a webhook was disabled',
          text: `Your webhook ${webhook.url} (id ${webhook.id}) was disabled: ${reason}.\n\nNo further events are sent to it until you re-enable it (PATCH /api/v1/webhooks/${webhook.id} with {"active": true}, or in the dashboard). Its delivery log shows what the endpoint answered.`,
        });
      },
    }),
  );
  // Push notifications: FCM HTTP v1 when FCM_SERVICE_ACCOUNT is set, else written to the log.
  const fcm = config.fcm;
  const pushProvider = fcm
    ? createFcmProvider({
        projectId: fcm.projectId,
        endpoint: fcm.endpoint,
        account: fcm,
        fetch: createSafeFetch({ allowPrivateUrls: config.allowPrivateUrls, userAgent: 'Emporium-Push/1' }),
      })
    : createLogPushProvider(logger);
  runner.add(pushNotificationJobs({ db: input.db, provider: pushProvider, logger }));
  // Orders waiting for a card payment past PAYMENT_HOLD_MINUTES: settled with Stripe, else released.
  runner.add(
    paymentHoldExpiryJobs({
      db: input.db,
      accounts: createStripeAccounts({ appSecret: appSecretOf(config), api: config.stripe }),
      orders,
      logger,
      stripeTimeoutMs: config.stripe.timeoutMs,
    }),
  );
  // The stores' e-mails: composed from their templates now, sent through SMTP_URL (else logged).
  runner.add(
    notificationJobs({
      db: input.db,
      composer: createNotificationComposer({
        db: input.db,
        publicUrl: config.publicUrl,
        stores,
        orders,
        products,
      }),
      mailer,
      logger,
      retryScheduleMs: config.mailRetryScheduleMs,
      // Past the mailer's time-outs (connection, greeting, an answer) and a compose.
      leaseMs: 2 * config.mailTimeoutMs + 10_000,
    }),
  );
  // Stores marked for deletion: their rows and media removed in batches, resumable (§14).
  const stopping = new AbortController();
  const storage = createMediaStorage({
    driver: config.media.driver,
    dataDir: config.dataDir,
    publicUrl: config.publicUrl,
    s3: config.media.s3,
  });
  runner.add(
    storeDeletionJobs({ db: input.db, storage, logger, signal: stopping.signal, ...input.storeDeletion }),
  );
  runner.every(webhookLogRetention(input.db, logger));
  runner.every(notificationLogRetention(input.db, logger));
  runner.every(pushLogRetention(input.db, logger));
  runner.every(auditLogRetention(input.db, logger, { batchSize: input.prune?.batchSize }));
  runner.every(
    cartExpiryTask(input.db, logger, { everyMs: input.cartExpiry?.everyMs, batchSize: PRUNE_BATCH }),
  );
  runner.every({
    name: 'expired_rows_prune',
    everyMs: input.prune?.everyMs ?? PRUNE_EVERY_MS,
    async run(signal) {
      const pruned = await pruneExpiredRows(input.db, { batchSize: input.prune?.batchSize, signal });
      const deleted = Object.fromEntries(
        Object.entries(pruned)
          .filter(([, table]) => table.deleted > 0)
          .map(([name, table]) => [name, table.deleted]),
      );
      if (Object.keys(deleted).length > 0) logger.info({ deleted }, 'expired rows pruned');
    },
  });
  runner.start();
  logger.info(
    `background worker started (webhook deliveries, e-mail ${config.smtpUrl ? 'via SMTP' : 'to the log'}, push notifications via ${pushProvider.name}, payment holds)`,
  );
  return {
    async stop() {
      stopping.abort();
      await runner.stop();
      await storage.close();
      await pushProvider.close?.();
      await fetch.close();
      await mailer.close();
    },
  };
}
