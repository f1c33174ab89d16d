import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createNotificationComposer,
  type NotificationComposer,
  type QueuedNotification,
} from '../../src/modules/notifications/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  type ProductData,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder } from '../helpers/order-factories.js';

/**
 * The composer the send job calls (message.ts), over real records: the store's face and links (its
 * custom domain), the order with its lines, totals and address, the shipment, the refund, the
 * product; the store's own template when it has one; Reply-To; another store's records never.
 */
let app: TestApp;
let composer: NotificationComposer;
let api: Client;
let storeId: string;
let desk: ProductData;
let lamp: ProductData;
const ORIGIN = 'http://localhost:3000';
const ADDRESS = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  line1: '10 Analytical Row',
  city: 'London',
  postal_code: 'N1 9GU',
  country: 'GB',
};

beforeAll(async () => {
  app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: ORIGIN } });
  const { services } = app;
  composer = createNotificationComposer({
    db: app.database.db,
    publicUrl: ORIGIN,
    stores: services.stores,
    orders: services.orders,
    products: services.products,
  });
  const store = await createStoreWithKey(app);
  storeId = store.store.id;
  api = client(app, store.key);
  await services.stores.updateSettings(storeId, {
    name: 'Oak & Iron',
    logo: 'https://cdn.example.com/oak.png',
    colors: { primary: '#334455' },
    contact_email: 'help@oak.test',
    custom_domain: 'shop.oak.test',
  });
  desk = await createProduct(api, { name: 'Walnut <desk>', price: '250.00', inventory: 10, sku: 'DESK' });
  lamp = await createProduct(api, {
    name: 'Brass lamp',
    price: '40.00',
    options: [{ name: 'Finish', values: ['Matte', 'Gloss'] }],
    variants: [
      { title: 'Matte', price: '40.00', inventory: 100, sku: 'LAMP-M', options: { Finish: 'Matte' } },
      { title: 'Gloss', price: '45.00', inventory: 0, sku: 'LAMP-G', options: { Finish: 'Gloss' } },
    ],
  });
});
afterAll(() => app.close());

const queued = (n: Partial<QueuedNotification> & Pick<QueuedNotification, 'kind'>): QueuedNotification => ({
  id: '01900000-0000-7000-8000-00000000ffff',
  store_id: storeId,
  to_email: 'buyer@example.com',
  order_id: null,
  refs: {},
  test: false,
  ...n,
});

async function paidOrder() {
  return createOrder(api, {
    items: [
      { product_id: desk.id, quantity: 1 },
      { product_id: lamp.id, variant_id: lamp.variants[0]?.id, quantity: 2 },
    ],
    shipping_address: ADDRESS,
    mark_paid: true,
  });
}

describe('createNotificationComposer', () => {
  it("renders an order confirmation from the order as it is, with the store's face and its domain", async () => {
    const order = await paidOrder();
    const message = await composer.compose(queued({ kind: 'order_confirmation', order_id: order.id }));
    expect(message.storeName).toBe('Oak & Iron');
    expect(message.replyTo).toBe('help@oak.test');
    expect(message.subject).toBe(`Order #${order.order_number} confirmed — Oak & Iron`);
    const link = `http://shop.oak.test/account/orders/${order.order_number}`;
    for (const part of [message.html, message.text]) {
      expect(part).toContain(link);
      expect(part).toContain('$330.00');
      expect(part).toContain('Matte');
      expect(part).toContain('10 Analytical Row');
      expect(part).toContain('N1 9GU London');
    }
    expect(message.html).toContain('Walnut &lt;desk&gt;');
    expect(message.text).toContain('Walnut <desk>: 1 × $250.00 = $250.00');
    expect(message.text).toContain('Brass lamp (Matte): 2 × $40.00 = $80.00');
    expect(message.html).toContain('src="https://cdn.example.com/oak.png"');
    expect(message.html).toContain('background-color:#334455');
  });

  it('renders the shipment the message names, with its tracking link', async () => {
    const order = await paidOrder();
    const fulfil = await api.post(`/api/v1/orders/${order.id}/fulfill`, {
      carrier: 'DHL',
      tracking_number: 'JD0123',
      tracking_url: 'https://track.example.com/JD0123',
    });
    expect(fulfil.statusCode, fulfil.body).toBe(200);
    const shipment = fulfil.json().data.fulfillments[0];
    const message = await composer.compose(
      queued({ kind: 'shipping_confirmation', order_id: order.id, refs: { fulfillment_id: shipment.id } }),
    );
    expect(message.subject).toBe(`Order #${order.order_number} has shipped — Oak & Iron`);
    expect(message.text).toContain('Carrier: DHL');
    expect(message.text).toContain('Tracking number: JD0123');
    expect(message.html).toContain('href="https://track.example.com/JD0123"');
  });

  it('renders a refund with the amount refunded and what remains paid', async () => {
    const order = await paidOrder();
    const res = await api.post(`/api/v1/orders/${order.id}/refunds`, {
      amount: '30.00',
      reason: 'Scratched',
    });
    expect(res.statusCode, res.body).toBe(201);
    const message = await composer.compose(
      queued({ kind: 'refund_issued', order_id: order.id, refs: { refund_id: res.json().data.id } }),
    );
    expect(message.text).toContain('We have refunded $30.00');
    expect(message.text).toContain('Reason: Scratched');
    expect(message.text).toContain('Refunded so far: $30.00. Still paid: $300.00.');
  });

  it('renders a cancellation with its reason, and the new order for the merchant with its dashboard link', async () => {
    const order = await paidOrder();
    const cancel = await api.post(`/api/v1/orders/${order.id}/cancel`, { reason: 'Out of walnut' });
    expect(cancel.statusCode, cancel.body).toBe(200);
    const cancelled = await composer.compose(queued({ kind: 'order_cancelled', order_id: order.id }));
    expect(cancelled.text).toContain('Reason: Out of walnut');
    const merchant = await composer.compose(
      queued({ kind: 'new_order', order_id: order.id, to_email: 'help@oak.test' }),
    );
    expect(merchant.subject).toBe(`New order #${order.order_number} ($330.00) — Oak & Iron`);
    expect(merchant.text).toContain(`${ORIGIN}/admin/orders/${order.id}`);
    expect(merchant.text).toContain(order.customer.email);
  });

  it('renders back in stock and low stock from the product and variant named', async () => {
    const gloss = lamp.variants[1]?.id;
    const back = await composer.compose(
      queued({ kind: 'back_in_stock', refs: { product_id: lamp.id, variant_id: gloss } }),
    );
    expect(back.subject).toBe('Brass lamp is back in stock — Oak & Iron');
    expect(back.text).toContain('Brass lamp (Gloss) is available again. It is back, at $45.00');
    expect(back.text).toContain(`http://shop.oak.test/products/${lamp.slug}`);
    const low = await composer.compose(
      queued({
        kind: 'low_stock',
        to_email: 'help@oak.test',
        refs: { product_id: lamp.id, variant_id: lamp.variants[0]?.id, threshold: 5, quantity: 3 },
      }),
    );
    expect(low.subject).toBe('Low stock: Brass lamp (Matte), 3 left — Oak & Iron');
    expect(low.text).toContain('SKU: LAMP-M');
    expect(low.text).toContain(`${ORIGIN}/admin/products/${lamp.id}`);
  });

  it("renders with the store's own template, and a test send with the preview's data", async () => {
    const order = await paidOrder();
    const put = await api.put('/api/v1/notifications/templates/order_confirmation', {
      subject: 'Yours: {{ order.line_items.size }} lines, {{ order.total | money }}',
      text: 'Hi {{ customer.first_name }}',
    });
    expect(put.statusCode, put.body).toBe(200);
    const message = await composer.compose(queued({ kind: 'order_confirmation', order_id: order.id }));
    expect(message.subject).toBe('Yours: 2 lines, $330.00');
    expect(message.text).toBe('Hi Grace\n');
    expect(message.html).toContain('Walnut &lt;desk&gt;');
    const test = await composer.compose(queued({ kind: 'low_stock', test: true }));
    expect(test.subject).toMatch(/^Low stock: Organic cotton T-shirt/);
    await api.del('/api/v1/notifications/templates/order_confirmation');
  });

  it("answers Reply-To with the store's owner when it has no contact e-mail (not a colleague who joined first)", async () => {
    const other = await createStoreWithKey(app);
    const colleague = await app.services.stores.createAdminUser({
      email: `staff.${other.store.slug}@example.com`,
      password: 'correct horse battery',
      storeSlug: other.store.slug,
    });
    await app.database.db
      .updateTable('admin_user_stores')
      .set({ role: 'staff' })
      .where('admin_user_id', '=', colleague.id)
      .execute();
    await app.services.stores.createAdminUser({
      email: `owner.${other.store.slug}@example.com`,
      password: 'correct horse battery',
      storeSlug: other.store.slug,
    });
    const message = await composer.compose(
      queued({ kind: 'order_confirmation', store_id: other.store.id, test: true }),
    );
    expect(message.replyTo).toBe(`owner.${other.store.slug}@example.com`);
    expect(message.storeName).toBe('Test Store');
  });

  it("never reads another store's records", async () => {
    const order = await paidOrder();
    const other = await createStoreWithKey(app);
    await expect(
      composer.compose(queued({ kind: 'order_confirmation', store_id: other.store.id, order_id: order.id })),
    ).rejects.toThrow(/not found/);
    await expect(
      composer.compose(
        queued({ kind: 'back_in_stock', store_id: other.store.id, refs: { product_id: desk.id } }),
      ),
    ).rejects.toThrow(/not found/);
  });
});
