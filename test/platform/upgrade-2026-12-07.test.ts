import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { migrationProvider } from '../../src/platform/db/migrations/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';
import { createTaxRegion, createZone } from '../helpers/region-factories.js';

/**
 * An install upgraded in place from the release of 2026-11-28 (last migration
 * 2026_11_28_0040_analytics_shipping_tax) keeps everything its merchants made, and the upgrade
 * sends no e-mail about what happened before it: no order placed, fulfilled, cancelled or refunded
 * under the last release is queued for a confirmation. The data is made by the app, the schema taken
 * back to the last release's (each new migration's `down`), then brought forward as `serve` does.
 */
const LAST_RELEASE = '2026_11_28_0040_analytics_shipping_tax';
const NEW_MIGRATIONS = ['2026_12_07_0041_notifications', '2026_12_07_0042_teams_platform'];
const NEW_TABLES = [
  'notifications',
  'notification_templates',
  'back_in_stock_subscriptions',
  'staff_invitations',
  'audit_log',
  'signup_requests',
  'operators',
  'operator_sessions',
];
const OWNER = { email: 'owner@shop.example', password: 'correct horse battery' };

let app: TestApp;
let api: Client;
let migrations: Kysely<unknown>;
let storeSlug: string;

/** What a merchant made, as rows, in a stable order. */
async function merchantData(db: Kysely<unknown>) {
  const tables = [
    'stores',
    'products',
    'product_variants',
    'orders',
    'order_line_items',
    'order_fulfillments',
    'refunds',
    'customers',
    'shipping_zones',
    'shipping_zone_countries',
    'shipping_rates',
    'tax_regions',
    'webhooks',
    'events',
    'order_history',
  ];
  const snapshot: Record<string, unknown[]> = {};
  for (const table of tables) {
    const { rows } = await sql<Record<string, unknown>>`
      SELECT * FROM ${sql.table(table)} ORDER BY 1, 2`.execute(db);
    snapshot[table] = rows;
  }
  return snapshot;
}

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, allowPrivateUrls: true } });
  const { key, store } = await createStoreWithKey(app);
  storeSlug = store.slug;
  await app.services.stores.createAdminUser({ ...OWNER, storeSlug: store.slug });
  api = client(app, key);
  expect((await api.patch('/api/v1/store', { contact_email: 'orders@shop.example' })).statusCode).toBe(200);
  await createZone(
    { api },
    { name: 'Germany', countries: ['DE'], rates: [{ name: 'Standard', price: '4.90' }] },
  );
  await createTaxRegion({ api }, { country: 'DE', name: 'VAT', rate: '19' });
  const product = await createProduct(api, { name: 'Mug', price: '10.00', inventory: 50 });
  const address = { line1: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country: 'DE' };
  const order = () =>
    createOrder(api, {
      customer: { email: 'jane@example.com' },
      items: [{ product_id: product.id, quantity: 2 }],
      shipping_address: address,
    });
  const shipped = await order();
  expect((await api.post(`/api/v1/orders/${shipped.id}/mark-paid`, {})).statusCode).toBe(200);
  const fulfil = await api.post(`/api/v1/orders/${shipped.id}/fulfill`, {
    carrier: 'DHL',
    tracking_number: '00340434161094042557',
  });
  expect(fulfil.statusCode, fulfil.body).toBe(200);
  const refunded = await order();
  expect((await api.post(`/api/v1/orders/${refunded.id}/mark-paid`, {})).statusCode).toBe(200);
  expect((await api.post(`/api/v1/orders/${refunded.id}/refunds`, { amount: 5 })).statusCode).toBe(201);
  const cancelled = await order();
  expect((await api.post(`/api/v1/orders/${cancelled.id}/cancel`, { reason: 'customer' })).statusCode).toBe(
    200,
  );
  migrations = new Kysely({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: app.testDatabase.url, max: 1 }) }),
  });
});
afterAll(async () => {
  await migrations?.destroy();
  await app?.close();
});

describe(`upgrade from the release whose last migration is ${LAST_RELEASE}`, () => {
  it('keeps every row a merchant made and queues no e-mail about the past', async () => {
    const before = await merchantData(migrations);

    const migrator = new Migrator({ db: migrations, provider: migrationProvider });
    const down = await migrator.migrateTo(LAST_RELEASE);
    expect(down.error).toBeUndefined();
    expect(down.results?.map((r) => r.migrationName).sort()).toEqual(NEW_MIGRATIONS);
    for (const table of NEW_TABLES) {
      const { rows } = await sql<{ name: string | null }>`SELECT to_regclass(${table})::text AS name`.execute(
        migrations,
      );
      expect(rows[0]?.name, table).toBeNull();
    }

    const outcome = await migrateToLatest(migrations as never);
    expect(outcome.applied).toEqual(NEW_MIGRATIONS);
    expect(await merchantData(migrations)).toEqual(before);
    for (const table of NEW_TABLES) {
      const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(
        migrations,
      );
      expect(Number(rows[0]?.n), table).toBe(0);
    }

    // The user the last release made is the owner of their store, with every scope, and signs in.
    const { rows: members } = await sql<{ role: string; permissions: string[] }>`
      SELECT role, permissions FROM admin_user_stores`.execute(migrations);
    expect(members).toEqual([{ role: 'owner', permissions: [] }]);
    const login = await app.server.inject({
      method: 'POST',
      url: '/api/admin/auth/login',
      payload: { ...OWNER, store: storeSlug },
    });
    expect(login.statusCode, login.body).toBe(200);
    const { rows: stores } = await sql<{ status: string }>`SELECT status FROM stores`.execute(migrations);
    expect(stores).toEqual([{ status: 'active' }]);

    // The upgraded store works as before: its orders read, and a new order is placed.
    const listed = await api.get('/api/v1/orders');
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data).toHaveLength(3);
  });
});
