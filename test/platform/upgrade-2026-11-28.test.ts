import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { migrationProvider } from '../../src/platform/db/migrations/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder, setPricing } from '../helpers/order-factories.js';

/**
 * An install upgraded in place from the release before 2026-11-28 (last migration
 * 2026_11_26_0027_product_counts) keeps everything its merchants made, and the new order history
 * starts from what the outbox still holds. The data is made by the app, the schema taken back to the
 * last release's (each new migration's `down`), then brought forward again as `serve` does at start.
 */
const LAST_RELEASE = '2026_11_26_0027_product_counts';
const NEW_MIGRATIONS = [
  '2026_11_28_0030_analytics_rebuild_joins',
  '2026_11_28_0034_order_history',
  '2026_11_28_0035_webhook_last_test',
  '2026_11_28_0036_regions',
  '2026_11_28_0040_analytics_shipping_tax',
  // Later releases' migrations are taken back and brought forward with the rest.
  '2026_12_07_0041_notifications',
  '2026_12_07_0042_teams_platform',
];

let app: TestApp;
let api: Client;
let migrations: Kysely<unknown>;

const NEW_COLUMNS: Record<string, string[]> = {
  orders: ['shipping_rate_id', 'shipping_method_name', 'tax_lines', 'taxes_included'],
  order_line_items: ['tax_amount'],
};

/** What a merchant made, as rows: every column the last release had, in a stable order. */
async function merchantData(db: Kysely<unknown>) {
  const tables = [
    'stores',
    'products',
    'product_variants',
    'categories',
    'discounts',
    'orders',
    'order_line_items',
    'refunds',
    'customers',
    'webhooks',
    'events',
  ];
  const snapshot: Record<string, unknown[]> = {};
  for (const table of tables) {
    const { rows } = await sql<
      Record<string, unknown>
    >`SELECT * FROM ${sql.table(table)} ORDER BY id`.execute(db);
    snapshot[table] = rows.map((row) => {
      const { last_test_at, last_test_succeeded, last_test_status_code, ...kept } = row;
      // Columns that release did not have (2026_11_28_0036_regions): taking the schema back drops
      // what they held (the orders' tax lines, each line's tax), and nothing of the release's.
      for (const column of NEW_COLUMNS[table] ?? []) delete kept[column];
      return kept;
    });
  }
  return snapshot;
}

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, allowPrivateUrls: true } });
  const { store, key } = await createStoreWithKey(app);
  api = client(app, key);
  await setPricing(app, store.id, { shipping_flat_rate: 500, tax_rate_bps: 1000 });
  const product = await createProduct(api, { name: 'Mug', price: '10.00', inventory: 50 });
  const paid = await createOrder(api, { items: [{ product_id: product.id, quantity: 2 }] });
  expect((await api.post(`/api/v1/orders/${paid.id}/mark-paid`, {})).statusCode).toBe(200);
  expect((await api.patch(`/api/v1/orders/${paid.id}`, { notes: 'leave at the door' })).statusCode).toBe(200);
  const refund = await api.post(`/api/v1/orders/${paid.id}/refunds`, { amount: 5 });
  expect(refund.statusCode, refund.body).toBe(201);
  const cancelled = await createOrder(api, { items: [{ product_id: product.id, quantity: 1 }] });
  expect((await api.post(`/api/v1/orders/${cancelled.id}/cancel`, { reason: 'customer' })).statusCode).toBe(
    200,
  );
  const webhook = await api.post('/api/v1/webhooks', {
    url: 'http://127.0.0.1:9/in',
    events: ['order.created'],
  });
  expect(webhook.statusCode, webhook.body).toBe(201);
  expect(store.id).toBeTruthy();
  migrations = new Kysely({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: app.testDatabase.url, max: 1 }) }),
  });
});
afterAll(async () => {
  await migrations?.destroy();
  await app?.close();
});

describe(`upgrade from the release whose last migration is ${LAST_RELEASE}`, () => {
  it('keeps every row a merchant made, and the new history starts from the recorded events', async () => {
    const orders = (await api.get('/api/v1/orders')).json().data as { id: string; status: string }[];
    const before = await merchantData(migrations);

    // Back to the last release's schema, as an install of that release has it.
    const migrator = new Migrator({ db: migrations, provider: migrationProvider });
    const down = await migrator.migrateTo(LAST_RELEASE);
    expect(down.error).toBeUndefined();
    expect(down.results?.map((r) => r.migrationName).sort()).toEqual(NEW_MIGRATIONS);
    const { rows: tables } = await sql<{
      name: string | null;
    }>`SELECT to_regclass('order_history')::text AS name`.execute(migrations);
    expect(tables[0]?.name).toBeNull();

    // The upgrade, as `serve` runs it at start.
    const outcome = await migrateToLatest(migrations as never);
    expect(outcome.applied).toEqual(NEW_MIGRATIONS);
    expect(await merchantData(migrations)).toEqual(before);

    // Each order's history starts from its events (the actor's kind from their source, where one is
    // named; no id then).
    for (const order of orders) {
      const res = await api.get(`/api/v1/orders/${order.id}/timeline`);
      expect(res.statusCode, res.body).toBe(200);
      const entries = res.json().data as { type: string; actor: { type: string; id: string | null } }[];
      // order.created names no source: who placed it was not recorded, and is not guessed.
      expect(entries[0]).toMatchObject({ type: 'created', actor: { type: 'unknown', id: null, name: null } });
      const types = entries.map((e) => e.type);
      if (order.status === 'cancelled') expect(types).toContain('cancelled');
      else expect(types).toEqual(expect.arrayContaining(['created', 'paid', 'refunded']));
      // order.updated carries its source: the notes were changed through the API.
      const updates = entries.filter((e) => e.type !== 'created' && e.type !== 'paid');
      if (order.status !== 'cancelled') expect(updates.some((e) => e.actor.type === 'api_key')).toBe(true);
    }
    const { rows: counted } = await sql<{ n: string }>`SELECT count(*) AS n FROM order_history`.execute(
      migrations,
    );
    const { rows: events } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM events WHERE name LIKE 'order.%'`.execute(migrations);
    expect(Number(counted[0]?.n)).toBe(Number(events[0]?.n));

    // The analytics of orders placed before the upgrade count their shipping and tax (the paid
    // order's; the cancelled one is out, as from revenue).
    const paid = (await api.get(`/api/v1/orders/${orders.find((o) => o.status !== 'cancelled')?.id}`)).json()
      .data;
    const report = (await api.get('/api/v1/analytics')).json().data;
    expect(report.totals).toMatchObject({ shipping: 5, tax: paid.tax_amount, refunds: 5 });
    expect(paid.tax_amount).toBe(2);
  });
});
