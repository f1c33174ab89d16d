import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';

/**
 * Issue 30 item 4: a currency change after the first order would relabel past money (overview,
 * analytics, customers' totals) while orders keep theirs, so it is refused with 409 once there is one.
 */
let app: TestApp;
const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN } });
});
afterAll(() => app.close());

/** A fresh store, its API client and a signed-in dashboard session. */
async function storeWithSession() {
  const { store, key } = await createStoreWithKey(app);
  const email = `owner.${store.slug}@example.com`;
  await app.services.stores.createAdminUser({ email, password: PASSWORD, storeSlug: store.slug });
  const login = await app.server.inject({
    method: 'POST',
    url: '/api/admin/auth/login',
    payload: { email, password: PASSWORD },
  });
  expect(login.statusCode, login.body).toBe(200);
  const cookie = String(login.headers['set-cookie']).split(';')[0] as string;
  const settings = async () =>
    (await app.server.inject({ method: 'GET', url: '/api/admin/store', headers: { cookie } })).json().data;
  const patch = (payload: Record<string, unknown>) =>
    app.server.inject({
      method: 'PATCH',
      url: '/api/admin/store',
      headers: { cookie, origin: ORIGIN },
      payload,
    });
  return { store, api: client(app, key), settings, patch };
}

describe('changing the store currency', () => {
  it('is allowed before the first order and says so (has_orders false)', async () => {
    const { settings, patch } = await storeWithSession();
    expect(await settings()).toMatchObject({ currency: 'USD', has_orders: false });
    // Other minor units would change the meaning of stored prices, orders or not.
    expect((await patch({ currency: 'JPY' })).statusCode).toBe(409);
    const res = await patch({ currency: 'EUR' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ currency: 'EUR', has_orders: false });
  });

  it('is refused with 409 once the store has an order; other settings still change', async () => {
    const { api, settings, patch } = await storeWithSession();
    const product = await createProduct(api, { inventory: 5, price: 10 });
    await createOrder(api, { items: [{ product_id: product.id, quantity: 1 }] });
    expect(await settings()).toMatchObject({ currency: 'USD', has_orders: true });

    const refused = await patch({ currency: 'EUR', name: 'Renamed' });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error.code).toBe('conflict');
    expect(refused.json().error.message).toMatch(/orders/);
    // Nothing of the refused change was applied, and the money stays labelled in dollars.
    expect(await settings()).toMatchObject({ currency: 'USD', name: 'Test Store' });
    const analytics = await api.get('/api/v1/analytics');
    expect(analytics.json().data.currency).toBe('USD');

    // The same currency (any case) is no change, and the rest of the settings still save.
    const same = await patch({ currency: 'usd', name: 'Renamed' });
    expect(same.statusCode, same.body).toBe(200);
    expect(same.json().data).toMatchObject({ currency: 'USD', name: 'Renamed', has_orders: true });
  });

  it('is refused by the service for every caller, not only the dashboard route', async () => {
    const { store, api } = await storeWithSession();
    const product = await createProduct(api, { inventory: 5, price: 10 });
    await createOrder(api, { items: [{ product_id: product.id, quantity: 1 }] });
    await expect(app.services.stores.updateSettings(store.id, { currency: 'EUR' })).rejects.toMatchObject({
      statusCode: 409,
    });
  });
});
