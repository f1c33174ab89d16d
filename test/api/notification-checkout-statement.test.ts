import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { mailsOfOrder } from '../helpers/notification-log.js';
import { checkoutBody } from '../helpers/order-factories.js';

/**
 * Checkout's e-mails cost it no round trip: without a discount, the confirmation and the new-order
 * e-mail are written by the one statement that takes the last stock and the order number (the
 * order's gated write batch), and only when that stock moved.
 */
let app: TestApp;
let api: Client;
let slug: string;
const statements: string[] = [];

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
  slug = store.store.slug;
  expect((await api.patch('/api/v1/store', { contact_email: 'desk@shop.example' })).statusCode).toBe(200);
  // Every statement the app sends, whichever pooled connection sends it.
  const patched = new WeakSet<pg.PoolClient>();
  app.database.pool.on('acquire', (connection) => {
    if (patched.has(connection)) return;
    patched.add(connection);
    const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
    (connection as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0] as string | { text: string };
      statements.push(typeof first === 'string' ? first : first.text);
      return query(...args);
    };
  });
});
afterAll(() => app.close());

describe('checkout with its e-mails', () => {
  it('queues both e-mails inside the statement that takes the stock and the order number', async () => {
    const p = await createProduct(api, { price: '10.00', inventory: 10 });
    const body = checkoutBody([{ productId: p.id, quantity: 1 }], {
      paymentMethod: 'test_card',
      cardToken: 'tok_visa',
    });
    statements.length = 0;
    const res = await client(app).post(`/api/storefront/${slug}/checkout`, body);
    expect(res.statusCode, res.body).toBe(201);
    const mailing = statements.filter((s) => /insert into "?notifications"?/i.test(s));
    expect(mailing).toHaveLength(1);
    expect(mailing[0]).toMatch(/\btail\b/);
    expect(mailing[0]).toMatch(/insert into "orders"/i);
    expect(await mailsOfOrder(api, res.json().data.id)).toEqual([
      'new_order → desk@shop.example',
      `order_confirmation → ${body.email}`,
    ]);
  });
});
