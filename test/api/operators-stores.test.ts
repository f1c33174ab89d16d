import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';

/** The operator's store list, store page, suspension and deletion (contract §14), over HTTP. */
let app: TestApp;
const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'operator password 1';
const OPERATOR = `ops.${Date.now()}@example.com`;
const tag = randomBytes(3).toString('hex');
let cookie: string;

type Method = 'GET' | 'POST' | 'DELETE';
const send = (method: Method, url: string, payload?: unknown) =>
  app.server.inject({
    method,
    url,
    headers: { cookie, ...(method === 'GET' ? {} : { origin: ORIGIN }) },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
const list = async (query: string) => {
  const res = await send('GET', `/api/operator/stores${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: Record<string, unknown>[]; next_cursor: string | null };
};

/** Alpha: a store with products, orders in and out of the last 30 days, and a cancelled one. */
const alpha = { id: '', slug: `alpha-${tag}`, key: '', ownerEmail: `Owner.${tag}@Example.com` };

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN } });
  await app.services.operators.createOperator({ email: OPERATOR, password: PASSWORD });
  const login = await app.server.inject({
    method: 'POST',
    url: '/api/operator/auth/login',
    payload: { email: OPERATOR, password: PASSWORD },
  });
  expect(login.statusCode, login.body).toBe(200);
  cookie = String(login.headers['set-cookie']).split(';')[0] as string;

  const store = await app.services.stores.createStore({
    slug: alpha.slug,
    name: `Alpha Goods ${tag}`,
    currency: 'EUR',
    timezone: 'Pacific/Auckland',
  });
  alpha.id = store.id;
  alpha.key = (await app.services.stores.createApiKey(store.id, { scopes: 'all' })).key;
  await app.services.stores.createAdminUser({
    email: alpha.ownerEmail,
    password: PASSWORD,
    storeSlug: alpha.slug,
  });
});
afterAll(() => app.close());

/** The figures computed the slow way, from the orders themselves: what the list must agree with. */
async function truth(storeId: string) {
  const { rows } = await sql<{ orders: string; revenue: string }>`
    SELECT count(*) AS orders, coalesce(sum(o.amount_paid), 0) AS revenue
    FROM orders o JOIN stores s ON s.id = o.store_id
    WHERE o.store_id = ${storeId} AND o.status <> 'cancelled'
      AND (o.created_at AT TIME ZONE s.timezone)::date >= (now() AT TIME ZONE s.timezone)::date - 29`.execute(
    app.database.db,
  );
  return { orders_30d: Number(rows[0]?.orders), revenue_30d: Number(rows[0]?.revenue) };
}

describe('the store list', () => {
  it('shows each store with its owner, products, orders and revenue of 30 days and last activity', async () => {
    const api = client(app, alpha.key);
    const products = [];
    for (let i = 0; i < 3; i++)
      products.push(await createProduct(api, { name: `P${i}`, price: '10.50', inventory: 100 }));
    await createProduct(api, { name: 'Draft', price: '1.00', status: 'draft' });
    const orders = [];
    for (let i = 0; i < 5; i++)
      orders.push(
        await createOrder(api, {
          items: [{ product_id: products[i % 3]?.id, quantity: i + 1 }],
          mark_paid: true,
        }),
      );
    // One cancelled, one 20 days old (inside), two 40 and 31 days old (outside the 30 days).
    expect((await api.post(`/api/v1/orders/${orders[4].id}/cancel`, {})).statusCode).toBe(200);
    const age = (id: string, days: number) =>
      sql`UPDATE orders SET created_at = now() - make_interval(days => ${days}) WHERE id = ${id}`.execute(
        app.database.db,
      );
    await age(orders[1].id, 20);
    await age(orders[2].id, 40);
    await age(orders[3].id, 31);
    const inside = [orders[0], orders[1]];
    const expected = {
      orders_30d: 2,
      revenue_30d: Math.round(inside.reduce((sum, o) => sum + o.total, 0) * 100),
    };
    expect(await truth(alpha.id)).toEqual(expected);

    const newest = await app.database.db
      .selectFrom('orders')
      .select('created_at')
      .where('store_id', '=', alpha.id)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    const item = {
      id: alpha.id,
      slug: alpha.slug,
      name: `Alpha Goods ${tag}`,
      owner_email: alpha.ownerEmail.toLowerCase(),
      status: 'active',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      products_count: 4,
      ...expected,
      currency: 'EUR',
      last_activity_at: newest.created_at.toISOString(),
    };
    // Before the analytics journal is folded (figures from the rollup and its journal together)…
    const before = await list(`?q=${alpha.slug}`);
    expect(before).toEqual({ data: [item], next_cursor: null });
    // …and after (the merchant's analytics report folds it): the same figures.
    expect((await api.get('/api/v1/analytics')).statusCode).toBe(200);
    const pending = await sql<{ n: string }>`
      SELECT count(*) AS n FROM analytics_pending_days WHERE store_id = ${alpha.id}`.execute(app.database.db);
    expect(Number(pending.rows[0]?.n)).toBe(0);
    expect((await list(`?q=${alpha.slug}`)).data).toEqual([item]);

    // A member's sign-in is activity.
    const signIn = await app.server.inject({
      method: 'POST',
      url: '/api/admin/auth/login',
      payload: { email: alpha.ownerEmail, password: PASSWORD },
    });
    expect(signIn.statusCode).toBe(200);
    const after = (await list(`?q=${alpha.slug}`)).data[0];
    expect(Date.parse(String(after?.last_activity_at))).toBeGreaterThan(newest.created_at.getTime());
  });

  it('searches slug, name and owner e-mail, case-insensitive; wildcards match literally', async () => {
    const bravo = await createStoreWithKey(app, { slug: `bravo-${tag}` });
    expect((await list(`?q=ALPHA-${tag}`)).data.map((s) => s.id)).toEqual([alpha.id]);
    expect((await list(`?q=${encodeURIComponent(`goods ${tag}`)}`)).data.map((s) => s.id)).toEqual([
      alpha.id,
    ]);
    expect((await list(`?q=${encodeURIComponent(`OWNER.${tag}@`)}`)).data.map((s) => s.id)).toEqual([
      alpha.id,
    ]);
    expect((await list(`?q=${tag}`)).data.map((s) => s.id)).toEqual([bravo.store.id, alpha.id]);
    expect((await list('?q=%25')).data).toEqual([]);
    expect((await list('?q=_')).data).toEqual([]);
    // A store without members: no owner, zero figures.
    expect((await list(`?q=bravo-${tag}`)).data[0]).toMatchObject({
      owner_email: null,
      products_count: 0,
      orders_30d: 0,
      revenue_30d: 0,
      currency: 'USD',
    });
  });

  it('pages newest first with a cursor bound to the search', async () => {
    const pageTag = `page${tag}`;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.unshift((await createStoreWithKey(app, { slug: `${pageTag}-${i}` })).store.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const page = await list(
        `?q=${pageTag}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      sizes.push(page.data.length);
      seen.push(...page.data.map((s) => String(s.id)));
      cursor = page.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual(ids);

    const first = await list(`?q=${pageTag}&limit=2`);
    const next = String(first.next_cursor);
    for (const query of [
      `?q=other&cursor=${encodeURIComponent(next)}`,
      `?cursor=${encodeURIComponent(next)}`,
      `?q=${pageTag}&cursor=${encodeURIComponent(`${next}x`)}`,
      `?q=${pageTag}&cursor=garbage`,
    ]) {
      const res = await send('GET', `/api/operator/stores${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    // The whole list (no search) holds every store once.
    const all: string[] = [];
    cursor = null;
    do {
      const page = await list(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      all.push(...page.data.map((s) => String(s.id)));
      cursor = page.next_cursor;
    } while (cursor);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(expect.arrayContaining([...ids, alpha.id]));
  });

  it('refuses bad queries with 400', async () => {
    for (const query of ['?limit=0', '?limit=101', '?limit=x', `?q=${'a'.repeat(201)}`]) {
      const res = await send('GET', `/api/operator/stores${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
  });
});

describe('a store: page, suspension and deletion', () => {
  it('the store page adds currency, time zone, domain, suspension and members', async () => {
    const res = await send('GET', `/api/operator/stores/${alpha.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      id: alpha.id,
      slug: alpha.slug,
      status: 'active',
      currency: 'EUR',
      timezone: 'Pacific/Auckland',
      custom_domain: null,
      suspended_at: null,
      suspension_reason: null,
      members_count: 1,
      products_count: 4,
      orders_30d: 2,
    });
    for (const id of ['0190a000-0000-7000-8000-000000000000', 'not-a-uuid']) {
      const missing = await send('GET', `/api/operator/stores/${id}`);
      expect(missing.statusCode, id).toBe(404);
      expect(missing.json().error.code).toBe('not_found');
    }
  });

  it('suspends with a reason (recorded in the store audit log), refuses a second time, unsuspends once', async () => {
    const { store } = await createStoreWithKey(app, { slug: `charlie-${tag}` });
    for (const body of [
      {},
      { reason: '' },
      { reason: '   ' },
      { reason: 'x'.repeat(501) },
      { reason: 5 },
      { reason: 'x', extra: 1 },
    ]) {
      const res = await send('POST', `/api/operator/stores/${store.id}/suspend`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    const suspended = await send('POST', `/api/operator/stores/${store.id}/suspend`, {
      reason: ' Selling counterfeits ',
    });
    expect(suspended.statusCode, suspended.body).toBe(200);
    expect(suspended.json().data).toMatchObject({ id: store.id, slug: store.slug, status: 'suspended' });
    const page = (await send('GET', `/api/operator/stores/${store.id}`)).json().data;
    expect(page).toMatchObject({ status: 'suspended', suspension_reason: 'Selling counterfeits' });
    expect(Date.parse(page.suspended_at)).toBeGreaterThan(Date.now() - 60_000);
    expect((await list(`?q=charlie-${tag}`)).data[0]).toMatchObject({ status: 'suspended' });

    const again = await send('POST', `/api/operator/stores/${store.id}/suspend`, { reason: 'again' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('conflict');

    const audit = await app.database.db
      .selectFrom('audit_log')
      .select(['actor_type', 'actor_name', 'action', 'resource_type', 'resource_id'])
      .where('store_id', '=', store.id)
      .execute();
    expect(audit).toEqual([
      {
        actor_type: 'system',
        actor_name: `operator ${OPERATOR}`,
        action: 'store.suspend',
        resource_type: 'store',
        resource_id: store.id,
      },
    ]);

    const lifted = await send('POST', `/api/operator/stores/${store.id}/unsuspend`);
    expect(lifted.statusCode, lifted.body).toBe(200);
    expect(lifted.json().data).toMatchObject({ id: store.id, status: 'active' });
    expect((await send('GET', `/api/operator/stores/${store.id}`)).json().data).toMatchObject({
      status: 'active',
      suspension_reason: null,
      suspended_at: null,
    });
    // Unsuspending an active store changes nothing (200, nothing recorded).
    const twice = await send('POST', `/api/operator/stores/${store.id}/unsuspend`);
    expect(twice.statusCode).toBe(200);
    expect(twice.json().data).toMatchObject({ status: 'active' });
    const actions = await app.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('store_id', '=', store.id)
      .orderBy('id')
      .execute();
    expect(actions.map((a) => a.action)).toEqual(['store.suspend', 'store.unsuspend']);
    for (const id of ['0190a000-0000-7000-8000-000000000000', 'nope']) {
      expect((await send('POST', `/api/operator/stores/${id}/suspend`, { reason: 'r' })).statusCode).toBe(
        404,
      );
      expect((await send('POST', `/api/operator/stores/${id}/unsuspend`)).statusCode).toBe(404);
      expect((await send('DELETE', `/api/operator/stores/${id}`)).statusCode).toBe(404);
    }
  });

  it('deletes: 202, the store leaves the list and its page at once; a second delete is 404', async () => {
    const { store } = await createStoreWithKey(app, { slug: `delta-${tag}` });
    await send('POST', `/api/operator/stores/${store.id}/suspend`, { reason: 'closing' });
    const res = await send('DELETE', `/api/operator/stores/${store.id}`);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ data: { id: store.id, status: 'deleting' } });
    expect((await send('GET', `/api/operator/stores/${store.id}`)).statusCode).toBe(404);
    expect((await list(`?q=delta-${tag}`)).data).toEqual([]);
    expect((await send('DELETE', `/api/operator/stores/${store.id}`)).statusCode).toBe(404);
    expect((await send('POST', `/api/operator/stores/${store.id}/unsuspend`)).statusCode).toBe(404);
  });
});
