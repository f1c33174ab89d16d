import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createStoreLifecycle, createStoresService } from '../../src/modules/stores/index.js';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import {
  cleanupDataDir,
  type Env,
  embeddedDatabaseUrl,
  killLeftovers,
  makeDataDir,
  ServerProcess,
  sleep,
} from '../helpers/processes.js';
import { WorkerProcess } from '../helpers/worker-process.js';

/**
 * A store's deletion across a worker killed with -9 mid-way (contract §14: "resumable after a
 * crash"): the first worker has removed part of the store's rows when it dies; a second worker
 * takes the store over once the lease (30 s) has run out, and the store ends fully gone, another
 * store untouched.
 */
const mode = inject('databaseMode');
/** Enough rows that the deletion (1,000 per statement) takes a few seconds. */
const EVENTS = 300_000;

let dataDir: string;
let env: Env;
let testDatabase: TestDatabase | undefined;
let server: ServerProcess;
let database: DatabaseHandle;

beforeAll(async () => {
  dataDir = makeDataDir('deletion');
  env = { DATA_DIR: dataDir, APP_SECRET: 'deletion-app-secret-0123456789abcdef' };
  if (mode === 'postgres') {
    testDatabase = await createTestDatabase();
    env.DATABASE_URL = testDatabase.url;
  }
  // The server migrates the database (and, embedded, runs the cluster); no worker of its own.
  server = await ServerProcess.start(env, { args: ['serve', '--no-worker'] });
  database = openDatabase(testDatabase?.url ?? embeddedDatabaseUrl(dataDir), { max: 4 });
}, 180_000);

afterAll(async () => {
  await Promise.all([...WorkerProcess.running].map((worker) => worker.kill()));
  await database?.close();
  if (server) await server.stop().catch(() => server.kill());
  await killLeftovers();
  await cleanupDataDir(dataDir);
  await testDatabase?.drop();
});

const eventsOf = async (storeId: string) =>
  (
    await sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE store_id = ${storeId}`.execute(
      database.db,
    )
  ).rows[0]?.n ?? 0;

describe('store deletion across a worker killed mid-way', () => {
  it('is finished by the next worker once the lease has run out', async () => {
    const stores = createStoresService(database.db);
    const lifecycle = createStoreLifecycle({ db: database.db, stores });
    const doomed = await stores.createStore({ slug: 'doomed', name: 'Doomed' });
    const kept = await stores.createStore({ slug: 'kept', name: 'Kept' });
    for (const store of [doomed, kept])
      await sql`
        INSERT INTO events (id, store_id, name, data, created_at, dispatched_at)
        SELECT emporium_uuid_v7(), ${store.id}, 'product.updated', '{}'::jsonb, now(), now()
        FROM generate_series(1, ${store === doomed ? EVENTS : 1000})`.execute(database.db);
    await lifecycle.requestDeletion(doomed.id);

    const first = await WorkerProcess.start(env);
    // Mid-way: some of its events gone, most still there.
    const started = Date.now();
    for (;;) {
      const left = await eventsOf(doomed.id);
      if (left < EVENTS && left > 0) break;
      expect(left, 'the first worker finished before it could be killed').toBeGreaterThan(0);
      expect(Date.now() - started).toBeLessThan(60_000);
      await sleep(20);
    }
    await first.kill();
    const leftAtKill = await eventsOf(doomed.id);
    expect(leftAtKill).toBeGreaterThan(0);
    const lease = await database.db
      .selectFrom('stores')
      .select(['status', 'deletion_locked_until'])
      .where('id', '=', doomed.id)
      .executeTakeFirstOrThrow();
    expect(lease.status).toBe('deleting');
    expect(lease.deletion_locked_until?.getTime()).toBeGreaterThan(Date.now());

    const second = await WorkerProcess.start(env);
    await second.waitForLog((line) => line.msg === 'store deleted', 90_000);
    expect(await eventsOf(doomed.id)).toBe(0);
    const row = await database.db
      .selectFrom('stores')
      .select('id')
      .where('id', '=', doomed.id)
      .executeTakeFirst();
    expect(row).toBeUndefined();
    expect(await eventsOf(kept.id)).toBe(1000);
    await second.stop();
  }, 180_000);
});
