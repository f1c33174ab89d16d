import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/**
 * Where the audit row goes in a write's transaction (platform/audit-trail.ts): a row that names its
 * resource from the path boards at BEGIN, before the work locks its rows, so a write waiting for a
 * hot row's lock already holds its audit row (and does not take one more statement under that lock).
 */
let app: TestApp;
let api: Client;
let storeId: string;
let key: string;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  key = store.key;
  api = client(app, store.key);
});
afterAll(() => app.close());

describe('the audit row of an update', () => {
  it('is written before the product row is locked, and commits once with the write', async () => {
    const product = await createProduct(api, { name: 'Hot', inventory: 5 });
    const db = app.database.db;
    const rows = async () =>
      (
        await db
          .selectFrom('audit_log')
          .select(['action', 'resource_id'])
          .where('store_id', '=', storeId)
          .where('resource_id', '=', product.id)
          .execute()
      ).filter((r) => r.action === 'product.update');

    let patch: PromiseLike<{ statusCode: number }> | undefined;
    await db.transaction().execute(async (holder) => {
      // Another transaction holds the product's row lock: the PATCH waits for it.
      await sql`SELECT id FROM products WHERE store_id = ${storeId} AND id = ${product.id} FOR UPDATE`.execute(
        holder,
      );
      patch = app.server.inject({
        method: 'PATCH',
        url: `/api/v1/products/${product.id}`,
        headers: { 'x-api-key': key },
        payload: { name: 'Renamed' },
      });
      // The waiting backend already holds the lock its audit INSERT took on audit_log.
      let waitingWithRow = false;
      for (let i = 0; i < 200 && !waitingWithRow; i++) {
        const { rows: found } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_locks waiting
          WHERE NOT waiting.granted AND EXISTS (
            SELECT 1 FROM pg_locks held
            WHERE held.pid = waiting.pid AND held.granted AND held.relation = 'audit_log'::regclass
              AND held.mode = 'RowExclusiveLock')`.execute(app.database.db);
        waitingWithRow = (found[0]?.n ?? 0) > 0;
        if (!waitingWithRow) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(waitingWithRow).toBe(true);
      expect(await rows()).toHaveLength(0); // not committed yet
    });
    // The holder has committed: the PATCH goes on, and its row commits with it.
    expect((await patch)?.statusCode).toBe(200);
    expect(await rows()).toHaveLength(1);
  });
});
