import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';

/** One write per request leaves one audit row, in the write's transaction; failed and rolled-back writes none. */
let app: TestApp;
let api: Client;
let storeId: string;
let keyId: string;
const ORIGIN = 'http://localhost:3000';
const IP = '203.0.113.7';
const unique = () => randomBytes(4).toString('hex');
const ADDRESS = { line1: '1 Main St', city: 'Springfield', postal_code: '10115', country: 'DE' };

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN } });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  keyId = store.keyId;
  api = client(app, store.key);
});
afterAll(() => app.close());

const db = () => app.database.db;
/** Rows of the store, oldest first (by id: UUID v7). */
const rowsOf = (store = storeId) =>
  db().selectFrom('audit_log').selectAll().where('store_id', '=', store).orderBy('id').execute();

/** Runs `write` and answers its response and the audit rows it added. */
async function rowsAfter<T>(write: () => Promise<T>, store = storeId) {
  const before = (await rowsOf(store)).length;
  const result = await write();
  return { result, added: (await rowsOf(store)).slice(before) };
}

let rawKey: string;
beforeAll(async () => {
  const key = await app.services.stores.createApiKey(storeId, { scopes: 'all', name: 'Warehouse sync' });
  rawKey = key.key;
  keyId = key.id;
});
/** A write with the named key, from IP. */
const write = (method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers = {}) =>
  app.server.inject({
    method,
    url,
    remoteAddress: IP,
    headers: { 'x-api-key': rawKey, ...headers },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

describe('writes with an API key', () => {
  it('PATCH product: one row with the key as actor, the action, the product and the address', async () => {
    const product = await createProduct(api, { inventory: 5 });
    const { result, added } = await rowsAfter(() =>
      write('PATCH', `/api/v1/products/${product.id}`, { name: 'Renamed' }),
    );
    expect(result.statusCode).toBe(200);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({
      actor_type: 'api_key',
      actor_id: keyId,
      actor_name: 'Warehouse sync',
      action: 'product.update',
      resource_type: 'product',
      resource_id: product.id,
      ip: IP,
    });
  });

  it('each kind of write records its action and resource, created ids included', async () => {
    const product = await createProduct(api, { inventory: 20 });
    const cases: Array<
      [
        string,
        () => Promise<{ statusCode: number; body: string; json(): { data?: { id?: string } } }>,
        string,
        string | ((body: { data?: { id?: string } }) => string | undefined),
      ]
    > = [
      [
        'product.create',
        () => write('POST', '/api/v1/products', { name: 'Hat', price: '10.00' }),
        'product',
        (b) => b.data?.id,
      ],
      [
        'category.create',
        () => write('POST', '/api/v1/categories', { name: `Cat ${unique()}` }),
        'category',
        (b) => b.data?.id,
      ],
      [
        'discount.create',
        () => write('POST', '/api/v1/discounts', { code: `C${unique()}`, type: 'percentage', value: 10 }),
        'discount',
        (b) => b.data?.id,
      ],
      [
        'inventory.adjust',
        () => write('PATCH', `/api/v1/inventory/${product.id}`, { adjustment: 2 }),
        'inventory',
        product.id,
      ],
      [
        'shipping_zone.create',
        () =>
          write('POST', '/api/v1/shipping-zones', {
            name: 'EU',
            countries: ['DE'],
            rates: [{ name: 'Std', price: '5.00' }],
          }),
        'shipping_zone',
        (b) => b.data?.id,
      ],
      [
        'tax_region.create',
        () => write('POST', '/api/v1/tax-regions', { country: 'FR', name: 'VAT', rate: '20' }),
        'tax_region',
        (b) => b.data?.id,
      ],
      ['store.update', () => write('PATCH', '/api/v1/store', { name: 'Renamed store' }), 'store', storeId],
      ['product.delete', () => write('DELETE', `/api/v1/products/${product.id}`), 'product', product.id],
    ];
    for (const [action, run, type, id] of cases) {
      const { result, added } = await rowsAfter(run);
      expect(result.statusCode, `${action}: ${result.body}`).toBeLessThan(300);
      const expectedId = typeof id === 'function' ? id(result.json()) : id;
      expect(expectedId, action).toBeTruthy();
      expect(added, action).toEqual([
        expect.objectContaining({ action, resource_type: type, resource_id: expectedId, actor_id: keyId }),
      ]);
    }
  });

  it('orders: create, fulfil, cancel and edit-items name the order; a refund names itself', async () => {
    const product = await createProduct(api, { inventory: 50, price: '10.00' });
    const { result: order, added: created } = await rowsAfter(() =>
      createOrder(api, {
        shipping_address: ADDRESS,
        items: [{ product_id: product.id, quantity: 1 }],
        mark_paid: true,
      }),
    );
    expect(created).toEqual([expect.objectContaining({ action: 'order.create', resource_id: order.id })]);
    const refund = await rowsAfter(() =>
      write('POST', `/api/v1/orders/${order.id}/refunds`, { amount: 1, reason: 'dent' }),
    );
    expect(refund.result.statusCode).toBe(201);
    expect(refund.added).toEqual([
      expect.objectContaining({
        action: 'refund.create',
        resource_type: 'refund',
        resource_id: refund.result.json().data.id,
      }),
    ]);
    const fulfil = await rowsAfter(() =>
      write('POST', `/api/v1/orders/${order.id}/fulfill`, { carrier: 'UPS' }),
    );
    expect(fulfil.result.statusCode).toBe(200);
    expect(fulfil.added).toEqual([
      expect.objectContaining({ action: 'order.fulfill', resource_type: 'order', resource_id: order.id }),
    ]);
    const other = await createOrder(api, {
      shipping_address: ADDRESS,
      items: [{ product_id: product.id, quantity: 1 }],
    });
    const line = other.line_items[0].id;
    const edit = await rowsAfter(() =>
      write('POST', `/api/v1/orders/${other.id}/edit-items`, {
        update_quantity: [{ item_id: line, new_quantity: 2 }],
      }),
    );
    expect(edit.result.statusCode, edit.result.body).toBe(200);
    expect(edit.added).toEqual([
      expect.objectContaining({ action: 'order.edit_items', resource_id: other.id }),
    ]);
    const cancel = await rowsAfter(() => write('POST', `/api/v1/orders/${other.id}/cancel`, {}));
    expect(cancel.result.statusCode).toBe(200);
    expect(cancel.added).toEqual([
      expect.objectContaining({ action: 'order.cancel', resource_id: other.id }),
    ]);
  });

  it('writes that fail (400, 404, 409) and dry runs leave no row', async () => {
    const product = await createProduct(api, { inventory: 3, price: '10.00' });
    const order = await createOrder(api, {
      shipping_address: ADDRESS,
      items: [{ product_id: product.id, quantity: 1 }],
    });
    await write('POST', `/api/v1/orders/${order.id}/cancel`, {});
    const { added } = await rowsAfter(async () => {
      const answers = [
        await write('PATCH', `/api/v1/products/${product.id}`, { price: 'ten' }),
        await write('PATCH', '/api/v1/products/00000000-0000-7000-8000-000000000000', { name: 'x' }),
        await write('POST', `/api/v1/orders/${order.id}/fulfill`, {}),
        await write('POST', '/api/v1/orders', {
          customer: { email: 'a@example.com' },
          shipping_address: ADDRESS,
          items: [{ product_id: product.id, quantity: 99 }],
        }),
        await write('POST', `/api/v1/notifications/templates/order_confirmation/preview`, {}),
      ];
      expect(answers.map((a) => a.statusCode)).toEqual([400, 404, 409, 409, 200]);
      const fresh = await createOrder(api, {
        shipping_address: ADDRESS,
        items: [{ product_id: product.id, quantity: 1 }],
      });
      const before = (await rowsOf()).length;
      const dry = await write('POST', `/api/v1/orders/${fresh.id}/edit-items`, {
        update_quantity: [{ item_id: fresh.line_items[0].id, new_quantity: 2 }],
        dry_run: true,
      });
      expect(dry.statusCode, dry.body).toBe(200);
      expect((await rowsOf()).length).toBe(before);
      return fresh;
    });
    // Only the fresh order's creation was recorded.
    expect(added.map((r) => r.action)).toEqual(['order.create']);
  });

  it('an Idempotency-Key replay records nothing more', async () => {
    const key = `k-${unique()}`;
    const { added } = await rowsAfter(async () => {
      const first = await write(
        'POST',
        '/api/v1/products',
        { name: 'Once', price: '5.00' },
        { 'idempotency-key': key },
      );
      const again = await write(
        'POST',
        '/api/v1/products',
        { name: 'Once', price: '5.00' },
        { 'idempotency-key': key },
      );
      expect([first.statusCode, again.statusCode]).toEqual([201, 201]);
      expect(again.headers['idempotent-replayed']).toBe('true');
    });
    expect(added).toHaveLength(1);
  });
});

describe("the row shares the write's transaction", () => {
  it('a failing audit insert rolls the write back; a retried transaction leaves exactly one row', async () => {
    const product = await createProduct(api, { name: 'Steady', inventory: 5 });
    // A trigger makes the audit insert fail as the commit of the write would: the first time with
    // a serialization failure (inTransaction runs the whole write again), or always for one action.
    // A sequence counts the attempts: unlike a table, it is not rolled back with them.
    await sql`CREATE SEQUENCE audit_test_attempts`.execute(db());
    await sql`CREATE FUNCTION audit_test_fail() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.action = 'product.update' AND nextval('audit_test_attempts') = 1 THEN
          RAISE EXCEPTION 'test failure' USING ERRCODE = '40001';
        END IF;
        IF NEW.action = 'category.update' THEN
          RAISE EXCEPTION 'test failure' USING ERRCODE = 'P0001';
        END IF;
        RETURN NEW;
      END $$`.execute(db());
    await sql`CREATE TRIGGER audit_test_fail BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_test_fail()`.execute(
      db(),
    );
    try {
      const retried = await rowsAfter(() =>
        write('PATCH', `/api/v1/products/${product.id}`, { name: 'Retried' }),
      );
      expect(retried.result.statusCode).toBe(200);
      expect(retried.added).toEqual([
        expect.objectContaining({ action: 'product.update', resource_id: product.id }),
      ]);

      const category = (await write('POST', '/api/v1/categories', { name: `Doomed ${unique()}` })).json()
        .data;
      const failed = await rowsAfter(() =>
        write('PATCH', `/api/v1/categories/${category.id}`, { name: 'Renamed in vain' }),
      );
      expect(failed.result.statusCode).toBe(500);
      expect(failed.added).toEqual([]);
      // The write went with its row: the category keeps its name.
      expect((await api.get(`/api/v1/categories/${category.id}`)).json().data.name).toBe(category.name);
    } finally {
      await sql`DROP TRIGGER audit_test_fail ON audit_log`.execute(db());
      await sql`DROP FUNCTION audit_test_fail()`.execute(db());
      await sql`DROP SEQUENCE audit_test_attempts`.execute(db());
    }
  });
});

describe('writes with a dashboard session', () => {
  let cookie: string;
  let userId: string;
  const email = `owner.${Date.now()}@example.com`;
  beforeAll(async () => {
    const user = await app.services.stores.createAdminUser({
      email,
      password: 'correct horse battery',
      storeSlug: (await app.services.stores.getStore(storeId)).slug,
    });
    userId = user.id;
  });

  it('records the user; sign-in and sign-out are not recorded', async () => {
    const { result: login, added: atLogin } = await rowsAfter(() =>
      app.server.inject({
        method: 'POST',
        url: '/api/admin/auth/login',
        payload: { email, password: 'correct horse battery' },
      }),
    );
    expect(login.statusCode).toBe(200);
    expect(atLogin).toEqual([]);
    cookie = String(login.headers['set-cookie']).split(';')[0] as string;

    const settings = await rowsAfter(() =>
      app.server.inject({
        method: 'PATCH',
        url: '/api/admin/store',
        remoteAddress: IP,
        headers: { cookie, origin: ORIGIN },
        payload: { name: 'From the dashboard' },
      }),
    );
    expect(settings.result.statusCode, settings.result.body).toBe(200);
    expect(settings.added).toEqual([
      expect.objectContaining({
        actor_type: 'user',
        actor_id: userId,
        actor_name: email,
        action: 'store.update',
        resource_type: 'store',
        resource_id: storeId,
        ip: IP,
      }),
    ]);

    const dashboard = (method: 'POST' | 'DELETE' | 'PATCH', url: string, payload?: unknown) =>
      app.server.inject({
        method,
        url,
        remoteAddress: IP,
        headers: { cookie, origin: ORIGIN },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const created = await rowsAfter(() =>
      dashboard('POST', '/api/admin/api-keys', { name: 'CI', scopes: ['orders:read'] }),
    );
    expect(created.result.statusCode, created.result.body).toBe(201);
    const newKey = created.result.json().data.id;
    expect(created.added).toEqual([
      expect.objectContaining({
        action: 'api_key.create',
        resource_type: 'api_key',
        resource_id: newKey,
        actor_id: userId,
      }),
    ]);
    const revoked = await rowsAfter(() => dashboard('DELETE', `/api/admin/api-keys/${newKey}`));
    expect(revoked.added).toEqual([
      expect.objectContaining({ action: 'api_key.revoke', resource_id: newKey }),
    ]);

    const product = await createProduct(api);
    const v1 = await rowsAfter(() =>
      dashboard('PATCH', `/api/v1/products/${product.id}`, { name: 'By hand' }),
    );
    expect(v1.result.statusCode).toBe(200);
    expect(v1.added).toEqual([expect.objectContaining({ actor_type: 'user', action: 'product.update' })]);

    const logout = await rowsAfter(() => dashboard('POST', '/api/admin/auth/logout'));
    expect(logout.result.statusCode).toBe(204);
    expect(logout.added).toEqual([]);
  });
});
