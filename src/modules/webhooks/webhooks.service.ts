import type { Static } from 'typebox';
import type { Db } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { conflict, invalidRequest, notFound } from '../../platform/http/errors.js';
import { type IfMatch, nextVersionTime, requireMatch } from '../../platform/http/etag.js';
import { recordIdempotentResource } from '../../platform/idempotency.js';
import { isUuid, newId } from '../../platform/ids.js';
import type { SafeFetch } from '../../platform/net/safe-fetch.js';
import { type AddressGuardOptions, resolveAllowedAddresses } from '../../platform/net/ssrf-guard.js';
import { openSecret, sealSecret } from '../../platform/secret-box.js';
import { deliveryBody, sampleData, subscribes, type WebhookEvent } from './events.js';
import { sendDelivery } from './send.js';
import { generateSecret } from './signing.js';
import * as repo from './webhooks.repository.js';
import type { WebhookCreateBody, WebhookUpdateBody } from './webhooks.schemas.js';
import type { DeliveryStatus } from './webhooks.tables.js';

export interface WebhooksDeps {
  db: Db;
  fetch: SafeFetch;
  appSecret: string;
  timeoutMs: number;
  guard: AddressGuardOptions;
}

/** http(s), no credentials, and a host whose addresses pass the SSRF guard (checked again at send). */
async function checkUrl(raw: string, guard: AddressGuardOptions): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidRequest('url is not a valid URL', [{ field: 'url', message: 'not a valid URL' }]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw invalidRequest('url must be http or https', [{ field: 'url', message: 'must be http or https' }]);
  if (url.username || url.password)
    throw invalidRequest('url must not carry credentials', [{ field: 'url', message: 'has credentials' }]);
  try {
    await resolveAllowedAddresses(url.hostname, guard);
  } catch (error) {
    const message = (error as Error).message;
    throw invalidRequest(`url is not allowed: ${message}`, [{ field: 'url', message }]);
  }
  return url.href;
}

export function createWebhooksService(deps: WebhooksDeps) {
  const { db } = deps;

  async function load(storeId: string, id: string) {
    const row = isUuid(id) ? await repo.findWebhook(db, storeId, id) : undefined;
    if (!row) throw notFound('webhook');
    return row;
  }

  /** Sends one attempt now (test sends, manual retries) and logs it; a retry keeps the schedule. */
  async function sendNow(webhook: repo.WebhookRow, delivery: repo.DeliveryRow, test: boolean) {
    const attempt = await repo.claimDelivery(db, webhook.store_id, delivery.id, deps.timeoutMs + 30_000);
    if (attempt === undefined) throw conflict('this delivery is being sent right now');
    const result = await sendDelivery(deps.fetch, {
      url: webhook.url,
      secret: openSecret(deps.appSecret, webhook.secret_sealed),
      deliveryId: delivery.id,
      event: delivery.event_type,
      body: delivery.payload,
      timeoutMs: deps.timeoutMs,
      test,
    });
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    // A failed manual retry of a delivery still being retried keeps its schedule.
    const status: DeliveryStatus = ok ? 'succeeded' : delivery.status === 'pending' ? 'pending' : 'failed';
    const row = {
      id: newId(),
      store_id: webhook.store_id,
      webhook_id: webhook.id,
      delivery_id: delivery.id,
      event_type: delivery.event_type,
      attempt,
      status,
      request_body: delivery.payload,
      status_code: result.statusCode,
      response_body: result.responseBody,
      error: result.error,
      duration_ms: result.durationMs,
      next_retry_at: status === 'pending' ? delivery.next_attempt_at : null,
      created_at: new Date(),
    };
    await db.transaction().execute(async (tx) => {
      await repo.insertAttempts(tx, [row]);
      await repo.releaseManualSend(tx, webhook.store_id, delivery.id, status);
      if (ok && !test) await repo.recordWebhookSuccess(tx, [webhook.id], new Date());
      if (test)
        await repo.recordWebhookTest(tx, webhook.store_id, webhook.id, {
          last_test_at: row.created_at,
          last_test_succeeded: ok,
          last_test_status_code: result.statusCode,
        });
    });
    return row;
  }

  return {
    async list(ctx: RequestContext, page: PageRequest) {
      return repo.listWebhooks(db, ctx.storeId, { offset: offsetOf(page), limit: page.limit });
    },

    get: (ctx: RequestContext, id: string) => load(ctx.storeId, id),

    async create(ctx: RequestContext, input: Static<typeof WebhookCreateBody>) {
      const url = await checkUrl(input.url, deps.guard);
      const secret = generateSecret();
      const now = new Date();
      const row = await inTransaction(db, async (tx) => {
        const inserted = await repo.insertWebhook(tx, {
          id: newId(),
          store_id: ctx.storeId,
          url,
          events: input.events,
          description: input.description ?? null,
          active: input.active ?? true,
          secret_sealed: sealSecret(deps.appSecret, secret),
          created_at: now,
          updated_at: now,
        });
        await recordIdempotentResource(tx, ctx.idempotency, { type: 'webhook', id: inserted.id });
        return inserted;
      });
      return { row, secret };
    },

    /** The create answer again (Idempotency-Key replay): the webhook with its current secret. */
    async created(ctx: RequestContext, id: string) {
      const row = await load(ctx.storeId, id);
      return { row, secret: openSecret(deps.appSecret, row.secret_sealed) };
    },

    async update(
      ctx: RequestContext,
      id: string,
      input: Static<typeof WebhookUpdateBody>,
      ifMatch?: IfMatch,
    ) {
      await load(ctx.storeId, id);
      const url = input.url === undefined ? undefined : await checkUrl(input.url, deps.guard);
      const row = await inTransaction(db, async (tx) => {
        const locked = await repo.lockWebhook(tx, ctx.storeId, id);
        if (!locked) throw notFound('webhook');
        requireMatch(ifMatch, locked);
        const reenabled = input.active === true && !locked.active;
        return repo.updateWebhook(tx, ctx.storeId, id, {
          ...(url ? { url } : {}),
          ...(input.events ? { events: input.events } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.active !== undefined ? { active: input.active } : {}),
          // Re-enabling starts a fresh failure count; disabling by hand is not a failure.
          ...(reenabled ? { disabled_reason: null, consecutive_failures: 0, failing_since: null } : {}),
          updated_at: nextVersionTime(locked.updated_at),
        });
      });
      if (!row) throw notFound('webhook');
      return row;
    },

    async remove(ctx: RequestContext, id: string) {
      if (!isUuid(id) || !(await repo.deleteWebhook(db, ctx.storeId, id))) throw notFound('webhook');
    },

    async rotateSecret(ctx: RequestContext, id: string) {
      await load(ctx.storeId, id);
      const secret = generateSecret();
      const row = await repo.updateWebhook(db, ctx.storeId, id, {
        secret_sealed: sealSecret(deps.appSecret, secret),
      });
      if (!row) throw notFound('webhook');
      return { row, secret };
    },

    async deliveries(
      ctx: RequestContext,
      id: string,
      filter: { status?: DeliveryStatus },
      page: PageRequest,
    ) {
      await load(ctx.storeId, id);
      return repo.listAttempts(db, ctx.storeId, id, filter, { offset: offsetOf(page), limit: page.limit });
    },

    /** A test delivery of a subscribed event, sent now with sample data; logged, never retried. */
    async sendTest(ctx: RequestContext, id: string, event: WebhookEvent) {
      const webhook = await load(ctx.storeId, id);
      if (!subscribes(webhook.events, event))
        throw invalidRequest(`this webhook is not subscribed to ${event}`, [
          { field: 'event', message: 'not subscribed' },
        ]);
      const now = new Date();
      const delivery: repo.DeliveryRow = {
        id: newId(),
        store_id: ctx.storeId,
        webhook_id: webhook.id,
        event_id: null,
        event_type: event,
        payload: deliveryBody(event, now, sampleData(event, now), true),
        is_test: true,
        status: 'failed',
        attempts: 0,
        next_attempt_at: null,
        locked_until: null,
        created_at: now,
        updated_at: now,
      };
      await repo.insertDeliveries(db, [delivery]);
      return sendNow(webhook, delivery, true);
    },

    /** Sends a delivery again now, whatever its state. */
    async retry(ctx: RequestContext, id: string, deliveryId: string) {
      const webhook = await load(ctx.storeId, id);
      const delivery = isUuid(deliveryId)
        ? await repo.findDelivery(db, ctx.storeId, webhook.id, deliveryId)
        : undefined;
      if (!delivery) throw notFound('delivery');
      return sendNow(webhook, delivery, delivery.is_test);
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
