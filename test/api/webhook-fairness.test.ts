import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/platform/outbox.js';
import type { BackgroundWorker } from '../../src/worker.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import { client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * A slow receiver must not hold back the deliveries of a healthy one: the worker keeps at most 64
 * claims in flight, and a receiver that answers only at WEBHOOK_TIMEOUT_MS would otherwise hold all
 * of them for that long.
 */
const TIMEOUT_MS = 6000;
/** More deliveries to the slow receiver than the worker's 64 claims in flight. */
const SLOW_EVENTS = 100;

let app: TestApp;
let worker: BackgroundWorker;
let slowReceiver: WebhookReceiver;
let fastReceiver: WebhookReceiver;

beforeAll(async () => {
  app = await buildTestApp({
    config: {
      ...UNLIMITED,
      allowPrivateUrls: true,
      webhookRetrySchedule: [1, 1],
      webhookTimeoutMs: TIMEOUT_MS,
    },
  });
  // Answers each request only when the worker has given up on it.
  slowReceiver = await startWebhookReceiver(undefined, { delayMs: TIMEOUT_MS });
  fastReceiver = await startWebhookReceiver();
  worker = startTestWorker(app);
});
afterAll(async () => {
  await worker?.stop();
  await slowReceiver?.close();
  await fastReceiver?.close();
  await app?.close();
});

async function storeWithWebhook(receiver: WebhookReceiver) {
  const { store, key } = await createStoreWithKey(app);
  const res = await client(app, key).post('/api/v1/webhooks', { url: `${receiver.url}/hook`, events: ['*'] });
  expect(res.statusCode, res.body).toBe(201);
  return { storeId: store.id, webhookId: res.json().data.id as string };
}

async function recordEvents(storeId: string, count: number) {
  await app.database.db.transaction().execute(async (tx) => {
    for (let n = 0; n < count; n++) await recordEvent(tx, storeId, 'order.created', { n });
  });
}

describe('a slow receiver and a healthy one', () => {
  it('a retry due to the healthy receiver is sent on time while the slow one holds every slot', async () => {
    const fast = await storeWithWebhook(fastReceiver);
    const slow = await storeWithWebhook(slowReceiver);
    // The healthy receiver fails the first attempt: its retry is due 1 s (± 10 %) later.
    fastReceiver.respondWith(() =>
      fastReceiver.received.length === 1 ? { status: 503 } : { status: 200, body: 'ok' },
    );
    await recordEvents(fast.storeId, 1);
    await fastReceiver.waitFor(() => fastReceiver.received.length === 1, 10_000);
    // Meanwhile the slow receiver's deliveries take every claim the worker can hold.
    await recordEvents(slow.storeId, SLOW_EVENTS);
    await slowReceiver.waitFor(() => slowReceiver.received.length >= 64, 10_000);
    const slowInFlight = slowReceiver.received.length;

    await fastReceiver.waitFor(() => fastReceiver.received.length === 2, 3 * TIMEOUT_MS);
    const [first, retry] = fastReceiver.received;
    const gapMs = (retry?.at ?? 0) - (first?.at ?? 0);
    console.log(
      `slow receiver holding ${slowInFlight} deliveries (answers after ${TIMEOUT_MS} ms); the healthy receiver's retry, due 0.9–1.1 s after its first attempt, came after ${gapMs} ms`,
    );
    expect(retry?.headers['x-webhook-id']).toBe(first?.headers['x-webhook-id']);
    expect(gapMs).toBeGreaterThanOrEqual(850);
    expect(gapMs).toBeLessThan(2500);

    // The slow receiver still gets all of its deliveries (they time out and are retried).
    await slowReceiver.waitFor(
      () => new Set(slowReceiver.received.map((r) => r.body)).size === SLOW_EVENTS,
      30_000,
    );
  }, 60_000);
});
