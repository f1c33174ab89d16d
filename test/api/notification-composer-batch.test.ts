import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ComposedMessage,
  createNotificationComposer,
  type NotificationComposer,
  type QueuedNotification,
} from '../../src/modules/notifications/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';

/**
 * The composer reads a batch's templates and orders together (the send job starts a claimed batch
 * in one turn): the messages are the same as composed one at a time, each store's own records and
 * template, never another store's, in one read of the orders for the batch.
 */
let app: TestApp;
let composer: NotificationComposer;
/** The number of orders of each orders.getMany call the composer made. */
const batches: number[] = [];
const ADDRESS = { line1: '1 Main St', city: 'Springfield', postal_code: '10115', country: 'DE' };
let messages: QueuedNotification[];
let foreign: QueuedNotification;

const queued = (n: Omit<QueuedNotification, 'id' | 'to_email' | 'test'>, i: number): QueuedNotification => ({
  id: `01900000-0000-7000-8000-0000000000${String(i).padStart(2, '0')}`,
  to_email: `buyer${i}@example.com`,
  test: false,
  ...n,
});

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  const { services } = app;
  composer = createNotificationComposer({
    db: app.database.db,
    publicUrl: 'http://localhost:3000',
    stores: services.stores,
    orders: {
      ...services.orders,
      getMany: (orders) => {
        batches.push(orders.length);
        return services.orders.getMany(orders);
      },
    },
    products: services.products,
  });
  const a = await createStoreWithKey(app);
  const b = await createStoreWithKey(app);
  const apiA = client(app, a.key);
  const apiB = client(app, b.key);
  await services.stores.updateSettings(b.store.id, { name: 'Second Shop' });
  // Store B's own subject (written as the template API stores it: the other parts default, null).
  await app.database.db
    .insertInto('notification_templates')
    .values({
      store_id: b.store.id,
      kind: 'order_confirmation',
      subject: 'B got order {{ order.order_number }}',
    })
    .execute();
  const mug = await createProduct(apiA, { name: 'Mug', price: '9.00', inventory: 100 });
  const cup = await createProduct(apiB, { name: 'Cup', price: '4.00', inventory: 100 });
  const orderOf = (api: typeof apiA, productId: string, quantity: number) =>
    createOrder(api, {
      items: [{ product_id: productId, quantity }],
      shipping_address: ADDRESS,
      mark_paid: true,
    });
  const [a1, a2, a3, b1] = await Promise.all([
    orderOf(apiA, mug.id, 1),
    orderOf(apiA, mug.id, 2),
    orderOf(apiA, mug.id, 3),
    orderOf(apiB, cup.id, 4),
  ]);
  const fulfil = await apiA.post(`/api/v1/orders/${a3.id}/fulfill`, {
    carrier: 'UPS',
    tracking_number: '1Z999',
  });
  expect(fulfil.statusCode, fulfil.body).toBe(200);
  messages = [
    queued({ store_id: a.store.id, kind: 'order_confirmation', order_id: a1.id, refs: {} }, 1),
    queued({ store_id: b.store.id, kind: 'order_confirmation', order_id: b1.id, refs: {} }, 2),
    queued({ store_id: a.store.id, kind: 'new_order', order_id: a2.id, refs: {} }, 3),
    queued({ store_id: a.store.id, kind: 'shipping_confirmation', order_id: a3.id, refs: {} }, 4),
    queued({ store_id: a.store.id, kind: 'order_confirmation', order_id: a2.id, refs: {} }, 5),
  ];
  // Store B's message naming store A's order.
  foreign = queued({ store_id: b.store.id, kind: 'order_confirmation', order_id: a1.id, refs: {} }, 6);
});
afterAll(() => app.close());

describe('composing a batch', () => {
  it('composes the messages of one turn with one read of their orders, as one at a time', async () => {
    batches.length = 0;
    const together = await Promise.all(messages.map((m) => composer.compose(m)));
    expect(batches).toEqual([4]); // a2 is named twice, read once
    const alone: ComposedMessage[] = [];
    for (const m of messages) alone.push(await composer.compose(m));
    expect(batches).toEqual([4, 1, 1, 1, 1, 1]);
    expect(together).toEqual(alone);
    expect(together.map((m) => m.subject)).toEqual([
      expect.stringMatching(/^Order #\d+ confirmed/),
      expect.stringMatching(/^B got order \d+$/),
      expect.stringMatching(/^New order #\d+/),
      expect.stringMatching(/^Order #\d+ has shipped/),
      expect.stringMatching(/^Order #\d+ confirmed/),
    ]);
    expect(together[1]?.storeName).toBe('Second Shop');
    expect(together[1]?.html).toContain('Cup');
    expect(together[0]?.html).toContain('Mug');
  });

  it("never answers a message with another store's order, even in the same batch", async () => {
    const settled = await Promise.allSettled([...messages, foreign].map((m) => composer.compose(m)));
    expect(settled.slice(0, -1).map((s) => s.status)).toEqual(Array(messages.length).fill('fulfilled'));
    const last = settled.at(-1);
    expect(last?.status).toBe('rejected');
    expect(String((last as PromiseRejectedResult).reason)).toMatch(/not found/);
  });
});
