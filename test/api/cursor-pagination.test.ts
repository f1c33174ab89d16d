import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  type ProductData,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createCustomers, createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';

let app: TestApp;
let api: Client;
let other: Client;
let storeId: string;
let product: ProductData;

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  api = client(app, store.key);
  other = client(app, (await createStoreWithKey(app)).key);
  product = await createProduct(api, { name: 'Widget', price: '10.00', inventory: 100_000 });
});
afterAll(() => app.close());

interface Page {
  data: { id: string }[];
  meta: { pagination: { page: number; has_next: boolean; has_prev: boolean; next_cursor: string | null } };
}

/** Walks a list by cursor from its first page; `between` runs after each page (to insert rows). */
async function walk(path: string, between?: (page: number) => Promise<void>) {
  const ids: string[] = [];
  const pages: Page['meta']['pagination'][] = [];
  const sep = path.includes('?') ? '&' : '?';
  let url = path;
  for (;;) {
    const res = await api.get(url);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as Page;
    ids.push(...body.data.map((row) => row.id));
    pages.push(body.meta.pagination);
    await between?.(pages.length);
    const next = body.meta.pagination.next_cursor;
    if (next === null) break;
    url = `${path}${sep}cursor=${encodeURIComponent(next)}`;
  }
  return { ids, pages };
}

const idsOf = (rows: { id: string }[]) => rows.map((row) => row.id);
const errorOf = (res: Awaited<ReturnType<Client['get']>>) => ({
  status: res.statusCode,
  ...res.json().error,
});

describe('customers by cursor', () => {
  let expected: string[];
  beforeAll(async () => {
    await createCustomers(app, storeId, 23);
    // Three customers created in the same millisecond, microseconds apart, and two at the very same
    // instant: the cursor must keep microseconds and break ties on the id.
    const tied = await createCustomers(app, storeId, 5);
    const instants = ['00.000100', '00.000200', '00.000300', '00.000400', '00.000400'];
    for (const [i, customer] of tied.entries())
      await sql`UPDATE customers SET created_at = ${`2026-06-01T00:00:${instants[i]}Z`}::timestamptz WHERE id = ${customer.id}`.execute(
        app.database.db,
      );
    expected = idsOf((await api.get('/api/v1/customers?limit=100')).json().data);
    expect(expected).toHaveLength(28);
  });

  it('walks to the end, in the page order, each customer once; next_cursor is null on the last page', async () => {
    for (const limit of [1, 2, 7, 28, 100]) {
      const { ids, pages } = await walk(`/api/v1/customers?limit=${limit}`);
      expect(ids).toEqual(expected);
      expect(pages.map((p) => p.page)).toEqual(pages.map((_, i) => i + 1));
      expect(pages.at(-1)).toMatchObject({ has_next: false, next_cursor: null });
      expect(pages.slice(0, -1).every((p) => p.has_next && typeof p.next_cursor === 'string')).toBe(true);
      expect(pages.slice(1).every((p) => p.has_prev)).toBe(true);
    }
  });

  it('neither repeats nor misses a customer while new ones are created during the walk', async () => {
    const { ids } = await walk('/api/v1/customers?limit=5', async (page) => {
      if (page <= 3)
        await app.services.customers.createMany(
          storeId,
          [1, 2, 3, 4].map((i) => ({ email: `late${page}.${i}@example.com` })),
        );
    });
    expect(ids).toEqual(expected);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('binds the cursor to its filters: the same filters continue, others are 400', async () => {
    const first = (await api.get('/api/v1/customers?limit=2&q=First1')).json() as Page;
    const cursor = encodeURIComponent(first.meta.pagination.next_cursor ?? '');
    expect((await api.get(`/api/v1/customers?limit=2&q=First1&cursor=${cursor}`)).statusCode).toBe(200);
    // limit may change between pages; filters may not.
    expect((await api.get(`/api/v1/customers?limit=9&q=First1&cursor=${cursor}`)).statusCode).toBe(200);
    for (const url of [`/api/v1/customers?cursor=${cursor}`, `/api/v1/customers?q=First2&cursor=${cursor}`]) {
      const res = await api.get(url);
      expect(errorOf(res)).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(res.json().error.details).toEqual([{ field: 'cursor', message: expect.any(String) }]);
    }
  });
});

describe('products by cursor', () => {
  it('walks every product and every filtered product to the end', async () => {
    for (let i = 0; i < 12; i++) await createProduct(api, { status: i % 3 === 0 ? 'draft' : 'active' });
    const all = idsOf((await api.get('/api/v1/products?limit=100')).json().data);
    const drafts = idsOf((await api.get('/api/v1/products?limit=100&status=draft')).json().data);
    expect(all).toHaveLength(13);
    expect(drafts).toHaveLength(4);
    expect((await walk('/api/v1/products?limit=3')).ids).toEqual(all);
    expect((await walk('/api/v1/products?limit=3&status=draft')).ids).toEqual(drafts);
    const { ids } = await walk('/api/v1/products?limit=4', async () => {
      await createProduct(api);
    });
    expect(ids).toEqual(all);
  });

  it('refuses a cursor of another list, and a status filter that changed', async () => {
    const products = (await api.get('/api/v1/products?limit=1&status=active')).json() as Page;
    const cursor = encodeURIComponent(products.meta.pagination.next_cursor ?? '');
    expect((await api.get(`/api/v1/products?limit=1&status=draft&cursor=${cursor}`)).statusCode).toBe(400);
    expect((await api.get(`/api/v1/customers?limit=1&status=active&cursor=${cursor}`)).statusCode).toBe(400);
  });
});

describe('orders by cursor', () => {
  let expected: string[];
  beforeAll(async () => {
    for (let i = 0; i < 11; i++)
      await createOrder(api, { items: [{ product_id: product.id, quantity: 1 }], mark_paid: i % 2 === 0 });
    expected = idsOf((await api.get('/api/v1/orders?limit=100')).json().data);
  });

  it('walks every order, and every paid order, while new orders are placed', async () => {
    const placeOne = async () => {
      await createOrder(api, { items: [{ product_id: product.id, quantity: 1 }], mark_paid: true });
    };
    expect((await walk('/api/v1/orders?limit=4', placeOne)).ids).toEqual(expected);
    const paid = idsOf((await api.get('/api/v1/orders?limit=100&payment_status=paid')).json().data);
    expect(paid.length).toBeGreaterThan(6);
    expect((await walk('/api/v1/orders?limit=4&payment_status=paid', placeOne)).ids).toEqual(paid);
  });

  it('a page-numbered page also hands out the cursor of the page after it', async () => {
    const page2 = (await api.get('/api/v1/orders?limit=3&page=2')).json() as Page;
    const next = encodeURIComponent(page2.meta.pagination.next_cursor ?? '');
    const page3 = (await api.get(`/api/v1/orders?limit=3&cursor=${next}`)).json() as Page;
    const byNumber = (await api.get('/api/v1/orders?limit=3&page=3')).json() as Page;
    expect(idsOf(page3.data)).toEqual(idsOf(byNumber.data));
    expect(page3.meta.pagination).toMatchObject({ page: 3, has_prev: true });
  });
});

describe('refused cursors', () => {
  let cursor: string;
  beforeAll(async () => {
    const first = (await api.get('/api/v1/orders?limit=1')).json() as Page;
    cursor = first.meta.pagination.next_cursor ?? '';
    expect(cursor).not.toBe('');
  });

  it('a tampered cursor is 400 invalid_request naming cursor', async () => {
    const [payload, mac] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...decoded, k: decoded.k + 1 })).toString('base64url');
    const flipped = `${mac.slice(0, -2)}${mac.endsWith('AA') ? 'AB' : 'AA'}`;
    for (const bad of [
      `${forged}.${mac}`,
      `${payload}.${flipped}`,
      payload,
      'not-a-cursor',
      `${cursor}.x`,
      '..',
      `${Buffer.from('{"p":1}').toString('base64url')}.${mac}`,
    ]) {
      const res = await api.get(`/api/v1/orders?cursor=${encodeURIComponent(bad)}`);
      expect(errorOf(res), bad).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(res.json().error.details[0].field).toBe('cursor');
    }
  });

  it("another store's cursor is 400, and so is page > 1 with a cursor", async () => {
    const res = await other.get(`/api/v1/orders?cursor=${encodeURIComponent(cursor)}`);
    expect(errorOf(res)).toMatchObject({ status: 400, code: 'invalid_request' });
    const withPage = await api.get(`/api/v1/orders?page=2&cursor=${encodeURIComponent(cursor)}`);
    expect(errorOf(withPage)).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(withPage.json().error.details[0].field).toBe('page');
    expect((await api.get(`/api/v1/orders?page=1&cursor=${encodeURIComponent(cursor)}`)).statusCode).toBe(
      200,
    );
  });

  it('an empty or oversized cursor is refused by validation', async () => {
    expect((await api.get('/api/v1/orders?cursor=')).statusCode).toBe(400);
    expect((await api.get(`/api/v1/orders?cursor=${'a'.repeat(1001)}`)).statusCode).toBe(400);
  });
});
