import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyFaults } from '../../src/platform/http/idempotency.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody } from '../helpers/order-factories.js';

/**
 * The crash window of Idempotency-Key: the work has committed, the response is not stored yet.
 * The fault hook throws right there, as a process dying at that moment would: the client never
 * gets its 201. Its retry with the same key must get the same resource, now and after the 60 s
 * after which an unanswered claim used to be run again, and nothing may be created twice.
 */
let app: TestApp;
let api: Client;
let shop: Client;
let storeId: string;
let slug: string;

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, allowPrivateUrls: true } });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  slug = store.store.slug;
  api = client(app, store.key);
  shop = client(app);
});
afterEach(() => {
  idempotencyFaults.beforeStore = undefined;
});
afterAll(() => app.close());

/** Makes the next request with an Idempotency-Key die after its commit, before its answer is stored. */
function crashAfterCommit() {
  idempotencyFaults.beforeStore = () => {
    idempotencyFaults.beforeStore = undefined;
    throw new Error('simulated crash after the commit');
  };
}

/** As if the claim had been left for longer than the 60 s after which an unanswered one is released. */
const ageClaim = (key: string) =>
  sql`UPDATE idempotency_keys SET created_at = now() - interval '2 minutes' WHERE key = ${key}`.execute(
    app.database.db,
  );

const ordersInDatabase = async () =>
  Number(
    (
      await app.database.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('store_id', '=', storeId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('Idempotency-Key survives a crash between the commit and the stored answer', () => {
  it('POST /api/v1/orders: the retry answers the first order; one order exists', async () => {
    const p = await createProduct(api, { inventory: 10 });
    const before = await ordersInDatabase();
    const key = `crash-order-${Date.now()}`;
    const body = { customer: { email: 'crash@example.com' }, items: [{ product_id: p.id, quantity: 1 }] };
    crashAfterCommit();
    const first = await api.post('/api/v1/orders', body, { 'idempotency-key': key });
    expect(first.statusCode).toBe(500);
    expect(await ordersInDatabase()).toBe(before + 1);

    const retry = await api.post('/api/v1/orders', body, { 'idempotency-key': key });
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const order = retry.json().data;
    expect(order).toMatchObject({ customer: { email: 'crash@example.com' }, line_items: [{ quantity: 1 }] });

    await ageClaim(key);
    const later = await api.post('/api/v1/orders', body, { 'idempotency-key': key });
    expect(later.statusCode).toBe(201);
    expect(later.json().data.id).toBe(order.id);
    expect(await ordersInDatabase()).toBe(before + 1);
    expect((await api.get(`/api/v1/inventory/${p.id}`)).json().data.inventory).toBe(9);
    // The same key with another body is still refused.
    const other = await api.post('/api/v1/orders', { ...body, notes: 'x' }, { 'idempotency-key': key });
    expect(other.statusCode).toBe(409);
  });

  it('POST /checkout: the retry answers the first order, as the checkout renders it; one order exists', async () => {
    const p = await createProduct(api, { inventory: 10 });
    const before = await ordersInDatabase();
    const key = `crash-checkout-${Date.now()}`;
    const body = checkoutBody([{ productId: p.id, quantity: 2 }], {
      paymentMethod: 'test_card',
      cardToken: 'tok_visa',
    });
    crashAfterCommit();
    const first = await shop.post(`/api/storefront/${slug}/checkout`, body, { 'idempotency-key': key });
    expect(first.statusCode).toBe(500);

    await ageClaim(key);
    const retry = await shop.post(`/api/storefront/${slug}/checkout`, body, { 'idempotency-key': key });
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const order = retry.json().data;
    expect(order).toMatchObject({ status: 'processing', paymentStatus: 'paid', email: body.email });
    expect(await ordersInDatabase()).toBe(before + 1);
    expect((await api.get(`/api/v1/inventory/${p.id}`)).json().data.inventory).toBe(8);

    // Once an answer is stored (this retry stored none: it was itself a replay), it is the same.
    const again = await shop.post(`/api/storefront/${slug}/checkout`, body, { 'idempotency-key': key });
    expect(again.json().data.id).toBe(order.id);
  });

  it('products, discounts and webhooks: a lost answer is re-rendered from what was created', async () => {
    const cases = [
      { url: '/api/v1/products', body: { name: 'Crash mug', price: '5.00' }, table: 'products' as const },
      {
        url: '/api/v1/discounts',
        body: { code: `CRASH${Date.now()}`, type: 'percentage', value: '5' },
        table: 'discounts' as const,
      },
      {
        url: '/api/v1/webhooks',
        body: { url: 'http://127.0.0.1:9/hook', events: ['order.created'] },
        table: 'webhooks' as const,
      },
    ];
    for (const c of cases) {
      const count = async () =>
        Number(
          (
            await app.database.db
              .selectFrom(c.table)
              .select((eb) => eb.fn.countAll().as('n'))
              .where('store_id', '=', storeId)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      const key = `crash-${c.table}-${Date.now()}`;
      crashAfterCommit();
      expect((await api.post(c.url, c.body, { 'idempotency-key': key })).statusCode).toBe(500);
      await ageClaim(key);
      const retry = await api.post(c.url, c.body, { 'idempotency-key': key });
      expect(retry.statusCode, `${c.url} ${retry.body}`).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(await count()).toBe(before + 1);
      const created = retry.json().data;
      const shown = await api.get(`${c.url}/${created.id}`);
      expect(shown.statusCode).toBe(200);
      if (c.table === 'webhooks') expect(created.secret).toMatch(/^whsec_/);
    }
  });
});
