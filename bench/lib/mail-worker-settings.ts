import type { App } from '../../src/app.js';
import {
  createNotificationComposer,
  type NotificationComposer,
} from '../../src/modules/notifications/index.js';
import type { openDatabase } from '../../src/platform/db/database.js';

/**
 * What the mail scenario's baseline copies from the worker's send path, and the composer as the
 * worker builds it (src/worker.ts), here in the bench process for the render timing.
 */
export const WORKER_MAIL = {
  /** The notification job's `concurrency`: messages claimed and in flight at once. */
  concurrency: 32,
  /** The mailer's nodemailer SMTP transport options (src/platform/mail.ts), the URL and time-outs aside. */
  transport: { pool: true, maxConnections: 8, maxMessages: 1000 } as Record<string, unknown>,
  transportShort: 'pool of 8 connections, 1,000 messages each',
  describe: 'notification job concurrency 32 (its default), mailer pool of 8 SMTP connections (its default)',
  /** Environment a developer may have set that would change the worker's sending. */
  unsetEnv: ['SMTP_URL', 'MAIL_FROM'] as readonly string[],
};

/** The worker's composer (src/worker.ts) over the app's services, with the worker's PUBLIC_URL. */
export function composerFor(
  app: App,
  handle: ReturnType<typeof openDatabase>,
  publicUrl: string,
): NotificationComposer {
  return createNotificationComposer({
    db: handle.db,
    publicUrl,
    stores: app.services.stores,
    orders: app.services.orders,
    products: app.services.products,
  });
}
