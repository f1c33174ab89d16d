import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/platform/outbox.js';
import type { BackgroundWorker } from '../../src/worker.js';
import { startBackgroundWorker } from '../../src/worker.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createCustomers, createStoreWithKey } from '../helpers/factories.js';
import { serveBytes, solidPng, startTestHost, type TestHost } from '../helpers/image-host.js';
import { createOrder } from '../helpers/order-factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Contract §14: a deleted store is gone for everyone at once, and the job runner removes its rows
 * (every table with a store_id, in batches) and its media in the background; other stores keep all
 * of theirs, an image they share included.
 */

const PUBLIC_URL = 'https://emporium.example.com';
const DOMAIN = 'shop.doomed-store.example';

let app: TestApp;
let host: TestHost;
let receiver: WebhookReceiver;
let dataDir: string;
let doomed: { id: string; slug: string; key: string; api: Client };
let kept: { id: string; slug: string; key: string; api: Client };

const mediaFiles = () => {
  const dir = path.join(dataDir, 'media', 'images');
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
};

/** Rows per table with a store_id column for one store (the schema's list, as the job reads it). */
async function rowsOf(storeId: string): Promise<Record<string, number>> {
  const tables = await sql<{ table: string }>`
    SELECT table_name AS table FROM information_schema.columns
    WHERE table_schema = current_schema() AND column_name = 'store_id' AND table_name <> 'stores'
    ORDER BY table_name`.execute(app.database.db);
  const counts: Record<string, number> = {};
  for (const { table } of tables.rows) {
    const result = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE store_id = ${storeId}`.execute(
      app.database.db,
    );
    counts[table] = result.rows[0]?.n ?? 0;
  }
  return counts;
}

/** A store with something in most tables: products with images, categories, customers, orders, a webhook. */
async function populate(
  store: { id: string; slug: string; api: Client },
  images: string[],
  withWebhook: boolean,
) {
  const parent = await store.api.post('/api/v1/categories', { name: 'Parent' });
  expect(parent.statusCode, parent.body).toBe(201);
  const child = await store.api.post('/api/v1/categories', {
    name: 'Child',
    parent_id: parent.json().data.id,
  });
  expect(child.statusCode, child.body).toBe(201);
  const products = [];
  for (let i = 0; i < 3; i++) {
    const res = await store.api.post('/api/v1/products', {
      name: `Mug ${i}`,
      price: '10.00',
      inventory: 50,
      category_ids: [child.json().data.id],
      download_images: true,
      images: images.map((url) => ({ url })),
    });
    expect(res.statusCode, res.body).toBe(201);
    products.push(res.json().data);
  }
  await createCustomers(app, store.id, 5);
  for (let i = 0; i < 3; i++)
    await createOrder(store.api, {
      customer: { email: `buyer${i}@example.com`, first_name: 'Ada', last_name: 'Lovelace' },
      items: [{ product_id: products[i % products.length].id, quantity: 1 }],
    });
  if (withWebhook) {
    // The deleted store's only: the worker would deliver the kept store's meanwhile (rows it adds).
    const hook = await store.api.post('/api/v1/webhooks', { url: `${receiver.url}/hook`, events: ['*'] });
    expect(hook.statusCode, hook.body).toBe(201);
    await recordEvent(app.database.db, store.id, 'order.created', { orderId: 'x' });
  }
  await app.services.stores.createAdminUser({
    email: `owner.${store.slug}@example.com`,
    password: 'correct horse battery',
    storeSlug: store.slug,
  });
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-deletion-'));
  host = await startTestHost({
    '/own.png': serveBytes(await solidPng(40, 40, { r: 200, g: 10, b: 10 }), 'image/png'),
    '/shared.png': serveBytes(await solidPng(40, 40, { r: 10, g: 10, b: 200 }), 'image/png'),
    '/other.png': serveBytes(await solidPng(40, 40, { r: 10, g: 200, b: 10 }), 'image/png'),
  });
  receiver = await startWebhookReceiver(() => ({ status: 500 }));
  app = await buildTestApp({
    config: { ...UNLIMITED, allowPrivateUrls: true, dataDir, publicUrl: PUBLIC_URL },
  });
  for (const which of ['doomed', 'kept'] as const) {
    const created = await createStoreWithKey(app);
    const store = {
      id: created.store.id,
      slug: created.store.slug,
      key: created.key,
      api: client(app, created.key),
    };
    if (which === 'doomed') doomed = store;
    else kept = store;
  }
  await app.services.stores.updateSettings(doomed.id, { custom_domain: DOMAIN });
  await populate(doomed, [host.url('/own.png'), host.url('/shared.png')], true);
  await populate(kept, [host.url('/shared.png'), host.url('/other.png')], false);
});
afterAll(async () => {
  await app?.close();
  await host?.close();
  await receiver?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('deleting a store', () => {
  let worker: BackgroundWorker | undefined;
  afterAll(async () => {
    await worker?.stop();
  });

  it('is gone for everyone at once, then the job removes every row and its own media', async () => {
    const doomedBefore = await rowsOf(doomed.id);
    const keptBefore = await rowsOf(kept.id);
    // The store filled the tables this test is about.
    for (const table of [
      'products',
      'product_media',
      'categories',
      'customers',
      'orders',
      'order_line_items',
      'webhooks',
      'events',
      'admin_user_stores',
      'api_keys',
    ])
      expect(doomedBefore[table], table).toBeGreaterThan(0);
    const filesBefore = mediaFiles();
    expect(filesBefore).toHaveLength(3);

    const deleting = await app.services.storeLifecycle.requestDeletion(doomed.id, {
      by: { operatorEmail: 'ops@example.com' },
    });
    expect(deleting.status).toBe('deleting');
    // At once: no storefront, no shop, no key, no custom domain.
    expect((await app.server.inject({ url: `/api/storefront/${doomed.slug}/products` })).statusCode).toBe(
      404,
    );
    expect((await app.server.inject({ url: `/shop/${doomed.slug}/` })).statusCode).toBe(404);
    expect((await doomed.api.get('/api/v1/products')).statusCode).toBe(401);
    expect(app.services.stores.slugOfCustomDomain(DOMAIN)).toBeUndefined();
    expect((await app.server.inject({ url: '/', headers: { host: DOMAIN } })).statusCode).not.toBe(200);

    // Small batches: every table takes several statements, as a large store's would.
    worker = startBackgroundWorker({
      config: app.config,
      db: app.database.db,
      pool: app.database.pool,
      logger: pino({ level: 'silent' }),
      storeDeletion: { batchSize: 2 },
    });
    const deadline = Date.now() + 30_000;
    while (
      await app.database.db.selectFrom('stores').select('id').where('id', '=', doomed.id).executeTakeFirst()
    ) {
      expect(Date.now(), 'the store was not deleted within 30 s').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const doomedAfter = await rowsOf(doomed.id);
    expect(Object.entries(doomedAfter).filter(([, n]) => n > 0)).toEqual([]);
    expect(await rowsOf(kept.id)).toEqual(keptBefore);
    // Its own image is gone; the one the other store shows too is kept.
    const filesAfter = mediaFiles();
    expect(filesAfter).toHaveLength(2);
    for (const media of (await kept.api.get('/api/v1/products?limit=10'))
      .json()
      .data.flatMap((p: { images: { url: string }[] }) => p.images)) {
      const res = await app.server.inject({ url: new URL(media.url).pathname });
      expect(res.statusCode, media.url).toBe(200);
    }
    // The owner's account remains (a person, possibly in other stores), without the store.
    const user = await app.database.db
      .selectFrom('admin_users')
      .select('id')
      .where('email', '=', `owner.${doomed.slug}@example.com`)
      .executeTakeFirst();
    expect(user).toBeDefined();
    // The other store works as before.
    expect((await kept.api.get('/api/v1/orders')).statusCode).toBe(200);
    expect((await app.server.inject({ url: `/shop/${kept.slug}/` })).statusCode).toBe(200);
  });
});
