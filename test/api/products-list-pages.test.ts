import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createCategory,
  createProduct,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
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

describe('GET /api/v1/products items', () => {
  it('are, byte for byte, what GET /api/v1/products/:id answers (variants, images, videos, categories)', async () => {
    const setup = await createStoreWithKey(app);
    const other = await createStoreWithKey(app);
    const api = client(app, setup.key);
    const [shoes, bags] = [await createCategory(api), await createCategory(api)];
    // Another store's product with the same shape: none of its rows may join this store's page.
    await createProduct(client(app, other.key), {
      images: [{ url: 'https://img.example/other.jpg' }],
      options: [{ name: 'Size', values: ['S'] }],
      variants: [{ title: 'S', options: { Size: 'S' }, price: '1.00' }],
    });
    await createProduct(api, {
      sku: 'FULL-1',
      compare_price: '12.50',
      low_stock_threshold: 2,
      category_ids: [bags.id, shoes.id],
      images: [
        { url: 'https://img.example/a.jpg', alt: 'front' },
        { url: 'https://img.example/b.jpg', is_primary: true },
        { url: 'https://video.example/c.mp4', media_type: 'video' },
      ],
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        {
          title: 'M',
          options: { Size: 'M' },
          price: '11.00',
          compare_price: '13.00',
          sku: 'FULL-1-M',
          inventory: 4,
        },
        { title: 'S', options: { Size: 'S' }, price: '10.00', inventory: 0 },
      ],
    });
    await createProduct(api, { inventory: 3 });
    await createProduct(api, { status: 'draft', category_ids: [shoes.id] });

    for (const query of ['limit=50', 'limit=2&page=2', 'limit=1&page=2']) {
      const list = await api.get(`/api/v1/products?${query}`);
      expect(list.statusCode).toBe(200);
      const items = list.json().data as Array<{ id: string }>;
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) {
        const one = await api.get(`/api/v1/products/${item.id}`);
        expect(JSON.stringify(item), query).toBe(JSON.stringify(one.json().data));
      }
    }
  });
});

describe('GET /api/v1/products as prepared statements', () => {
  it('keeps answering every page after a migration adds a column to products', async () => {
    // Every pooled connection has prepared the list's statements (two rounds of every page).
    await expectEveryPageClassic(a, storeA);
    await sql`ALTER TABLE products ADD COLUMN later_column text`.execute(app.database.db);
    try {
      await expectEveryPageClassic(a, storeA);
    } finally {
      await sql`ALTER TABLE products DROP COLUMN later_column`.execute(app.database.db);
    }
    await expectEveryPageClassic(a, storeA);
  });
});
