import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createCustomers, createStoreWithKey } from '../helpers/factories.js';

let app: TestApp;
let storeA: Awaited<ReturnType<typeof createStoreWithKey>>;
let storeB: Awaited<ReturnType<typeof createStoreWithKey>>;
let customersA: Awaited<ReturnType<typeof createCustomers>>;

beforeAll(async () => {
  app = await buildTestApp();
  storeA = await createStoreWithKey(app, { scopes: ['customers:read'] });
  storeB = await createStoreWithKey(app, { scopes: ['customers:read'] });
  customersA = await createCustomers(app, storeA.store.id, 45);
  await createCustomers(app, storeB.store.id, 3);
});
afterAll(() => app.close());

const get = (url: string, key?: string) =>
  app.server.inject({ method: 'GET', url, headers: key ? { 'x-api-key': key } : {} });

describe('GET /api/v1/customers', () => {
  it('returns the list envelope, newest first, with the six pagination fields', async () => {
    const res = await get('/api/v1/customers?limit=20', storeA.key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.meta.pagination).toEqual({
      page: 1,
      limit: 20,
      total: 45,
      total_pages: 3,
      has_next: true,
      has_prev: false,
      next_cursor: expect.any(String),
    });
    expect(body.data).toHaveLength(20);
    expect(body.data[0].email).toBe(customersA[44]?.email);
    const created = body.data.map((c: { created_at: string }) => c.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    expect(Object.keys(body.data[0]).sort()).toEqual(
      [
        'addresses',
        'created_at',
        'email',
        'first_name',
        'id',
        'last_name',
        'orders_count',
        'phone',
        'total_spent',
        'updated_at',
      ].sort(),
    );
    expect(body.data[0]).toMatchObject({ orders_count: 0, total_spent: 0, addresses: [] });
    expect(body.data[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('defaults to page 1 and limit 20, and pages to the end', async () => {
    const last = (await get('/api/v1/customers?page=3', storeA.key)).json();
    expect(last.data).toHaveLength(5);
    expect(last.meta.pagination).toMatchObject({ page: 3, limit: 20, has_next: false, has_prev: true });
    const beyond = (await get('/api/v1/customers?page=9', storeA.key)).json();
    expect(beyond.data).toEqual([]);
    expect(beyond.meta.pagination).toMatchObject({ page: 9, total: 45, has_next: false, has_prev: true });
  });

  it.each(['page=0', 'page=-1', 'page=abc', 'page=1.5', 'limit=0', 'limit=101', 'limit=x'])(
    'rejects %s with 400 invalid_request',
    async (query) => {
      const res = await get(`/api/v1/customers?${query}`, storeA.key);
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.details[0].field).toBe(query.split('=')[0]);
    },
  );

  it('accepts limit=100 and limit=1', async () => {
    expect((await get('/api/v1/customers?limit=100', storeA.key)).json().data).toHaveLength(45);
    expect((await get('/api/v1/customers?limit=1', storeA.key)).json().meta.pagination.total_pages).toBe(45);
  });

  it('filters by q on e-mail or name, case-insensitively, and treats wildcards literally', async () => {
    const byEmail = (await get(`/api/v1/customers?q=${encodeURIComponent('CUSTOMER7.')}`, storeA.key)).json();
    expect(byEmail.data.map((c: { email: string }) => c.email)).toEqual([customersA[7]?.email]);
    const byName = (await get('/api/v1/customers?q=first4%20last4', storeA.key)).json();
    expect(byName.meta.pagination.total).toBe(1);
    expect((await get('/api/v1/customers?q=%25', storeA.key)).json().meta.pagination.total).toBe(0);
  });

  it('never shows another store’s customers', async () => {
    const body = (await get('/api/v1/customers?limit=100', storeB.key)).json();
    expect(body.meta.pagination.total).toBe(3);
    const ids = new Set(customersA.map((c) => c.id));
    expect(body.data.some((c: { id: string }) => ids.has(c.id))).toBe(false);
  });
});

describe('GET /api/v1/customers/{id}', () => {
  it('returns the single-record envelope', async () => {
    const target = customersA[3];
    const res = await get(`/api/v1/customers/${target?.id}`, storeA.key);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: target?.id, email: target?.email, first_name: 'First3' });
  });

  it('answers 404 for a customer of another store, an unknown id and a malformed id', async () => {
    for (const id of [customersA[0]?.id, '01890000-0000-7000-8000-000000000000', 'not-a-uuid']) {
      const res = await get(`/api/v1/customers/${id}`, storeB.key);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: { code: 'not_found', message: 'customer not found' } });
    }
  });
});
