import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';

/*
 * The merchant list's page numbers over the per-status counters: every page, read from either end
 * of the index, must be the classic OFFSET query's page, and the total the classic count(*), after
 * every kind of write.
 */

let app: TestApp;
let a: Client;
let b: Client;
let storeA: string;

const STATUSES = ['active', 'draft', 'archived'] as const;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const first = await createStoreWithKey(app);
  const second = await createStoreWithKey(app);
  storeA = first.store.id;
  a = client(app, first.key);
  b = client(app, second.key);
  // 31 products in one statement (one trigger call), by threes at the same instant (ties broken by id).
  const base = Date.UTC(2026, 0, 1);
  await app.database.db
    .insertInto('products')
    .values(
      Array.from({ length: 31 }, (_, n) => ({
        id: randomUUID(),
        store_id: storeA,
        name: `Bulk ${n}`,
        slug: `bulk-${n}`,
        price: 100 + n,
        status: STATUSES[n % 3],
        options: '[]',
        created_at: new Date(base + Math.floor(n / 3) * 1000),
        updated_at: new Date(base),
      })),
    )
    .execute();
  await createProduct(b, { status: 'active' });
});
afterAll(() => app.close());

/** The classic answer: OFFSET over (created_at DESC, id DESC) and count(*). */
async function classic(storeId: string, status: string | undefined, limit: number, page: number) {
  const where = status ? sql`store_id = ${storeId} AND status = ${status}` : sql`store_id = ${storeId}`;
  const rows = await sql<{ id: string }>`SELECT id FROM products WHERE ${where}
    ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${(page - 1) * limit}`.execute(app.database.db);
  const count = await sql<{ n: string }>`SELECT count(*) AS n FROM products WHERE ${where}`.execute(
    app.database.db,
  );
  return { ids: rows.rows.map((r) => r.id), total: Number(count.rows[0]?.n) };
}

async function expectEveryPageClassic(api: Client, storeId: string) {
  for (const status of [undefined, ...STATUSES]) {
    for (const limit of [1, 4, 7, 100]) {
      const { total } = await classic(storeId, status, limit, 1);
      const lastPage = Math.max(1, Math.ceil(total / limit));
      for (let page = 1; page <= lastPage + 1; page++) {
        const res = await api.get(
          `/api/v1/products?limit=${limit}&page=${page}${status ? `&status=${status}` : ''}`,
        );
        expect(res.statusCode).toBe(200);
        const body = res.json();
        const expected = await classic(storeId, status, limit, page);
        const where = `status ${status ?? 'any'}, limit ${limit}, page ${page}`;
        expect(
          body.data.map((p: { id: string }) => p.id),
          where,
        ).toEqual(expected.ids);
        expect(body.meta.pagination, where).toMatchObject({
          page,
          limit,
          total: expected.total,
          total_pages: Math.ceil(expected.total / limit),
          has_next: page * limit < expected.total,
          has_prev: page > 1,
        });
      }
    }
  }
}

describe('GET /api/v1/products by page number', () => {
  it('answers every page, from either end, as the classic OFFSET query does', async () => {
    await expectEveryPageClassic(a, storeA);
  });

  it('keeps the total exact through creations, status changes and deletions', async () => {
    const first = await createProduct(a, { status: 'active' });
    const second = await createProduct(a, { status: 'draft' });
    await createProduct(a, { status: 'active' });
    expect((await a.patch(`/api/v1/products/${first.id}`, { status: 'archived' })).statusCode).toBe(200);
    expect((await a.patch(`/api/v1/products/${second.id}`, { name: 'Renamed' })).statusCode).toBe(200);
    expect((await a.del(`/api/v1/products/${second.id}`)).statusCode).toBe(204);
    await app.database.db
      .deleteFrom('products')
      .where('store_id', '=', storeA)
      .where('name', 'like', 'Bulk 1%')
      .execute();
    await app.database.db
      .updateTable('products')
      .set({ status: 'draft' })
      .where('store_id', '=', storeA)
      .where('name', 'like', 'Bulk 2%')
      .execute();
    await expectEveryPageClassic(a, storeA);
    // The other store's catalogue is its own.
    expect((await b.get('/api/v1/products?limit=1')).json().meta.pagination.total).toBe(1);
  });

  it('moves products between two statuses in opposite directions at once without a deadlock', async () => {
    const up = await createProduct(a, { status: 'draft' });
    const down = await createProduct(a, { status: 'active' });
    for (let round = 0; round < 10; round++) {
      const [one, two] = await Promise.all([
        a.patch(`/api/v1/products/${up.id}`, { status: round % 2 ? 'draft' : 'active' }),
        a.patch(`/api/v1/products/${down.id}`, { status: round % 2 ? 'active' : 'draft' }),
      ]);
      expect([one.statusCode, two.statusCode]).toEqual([200, 200]);
    }
    await expectEveryPageClassic(a, storeA);
  });
});
