export { WEBHOOK_EVENTS } from './events.js';
export { bodySignature, standardSignature } from './signing.js';
export { webhooksRoutes } from './webhooks.routes.js';
export { createWebhooksService, type WebhooksService } from './webhooks.service.js';
export { type WebhookJobsOptions, webhookDeliveryJobs, webhookLogRetention } from './worker.js';

import type { Db } from '../../platform/db/database.js';
import { pendingDeliveriesCount } from './webhooks.repository.js';

/** Deliveries waiting to be sent, for the queue-depth metric. */
export async function pendingDeliveries(db: Db): Promise<number> {
  return Number((await pendingDeliveriesCount(db)).count);
}
