import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackgroundWorker } from '../../src/worker.js';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import { type Client, client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { serveBytes, startTestHost, type TestHost, twoToneJpeg } from '../helpers/image-host.js';
import { setPricing } from '../helpers/order-factories.js';
import { freePort } from '../helpers/processes.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * The dashboard in Debian's Chromium against a real server (listening on a port), database, worker
 * and webhook receiver: each page's main action is done in the browser, and its effect checked
 * through the API. The steps share one signed-in browser and run in order.
 */
describe.skipIf(!hasChromium())('merchant dashboard in Chromium', () => {
  const EMAIL = 'owner@dashboard.test';
  const PASSWORD = 'correct horse battery staple';
  let app: TestApp;
  let api: Client;
  let base: string;
  let storeId: string;
  let slug: string;
  let worker: BackgroundWorker;
  let receiver: WebhookReceiver;
  let images: TestHost;
  let browser: LaunchedBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  // Shared between the steps.
  let productId: string;
  let webhookId: string;
  let webhookSecret: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({
      config: { ...UNLIMITED, publicUrl: base, allowPrivateUrls: true, webhookRetrySchedule: [1, 1] },
    });
    await app.server.listen({ port, host: '127.0.0.1' });
    const store = await createStoreWithKey(app, { slug: `dash-${port}` });
    storeId = store.store.id;
    slug = store.store.slug;
    api = client(app, store.key);
    await app.services.stores.createAdminUser({ email: EMAIL, password: PASSWORD, storeSlug: slug });
    // Shipping and tax, so that the order edit shows them frozen.
    await setPricing(app, storeId, { shipping_flat_rate: 500, tax_rate_bps: 1000 });
    worker = startTestWorker(app);
    receiver = await startWebhookReceiver();
    images = await startTestHost({ '/mug.jpg': serveBytes(await twoToneJpeg(640, 480), 'image/jpeg') });
    browser = await launchBrowser();
    page = browser.page;
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await receiver?.close();
    await images?.close();
    await app?.close();
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name });
  const dialog = () => page.getByRole('dialog');
  const nav = async (name: string) => {
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name, exact: true })
      .click();
    await heading(name).waitFor();
  };
  const notice = (text: string) => page.getByRole('status').filter({ hasText: text }).first().waitFor();

  async function orderByApi(items: { product_id: string; quantity: number }[], email: string) {
    const res = await api.post('/api/v1/orders', {
      customer: { email, first_name: 'Grace', last_name: 'Hopper' },
      items,
      shipping_address: { line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { id: string; order_number: string; total: number };
  }

  async function openOrder(orderNumber: string) {
    await nav('Orders');
    await page.getByLabel('Search orders').fill(orderNumber);
    await page.getByLabel('Search orders').press('Enter');
    await page.getByRole('link', { name: `#${orderNumber}`, exact: true }).click();
    await heading(`Order #${orderNumber}`).waitFor();
  }

  it('serves the dashboard at /admin: index revalidated, hashed assets immutable, routes fall back to the app', async () => {
    const index = await fetch(`${base}/admin`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const script = /src="(\/admin\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${base}${script}`);
    expect(asset.headers.get('content-type')).toMatch(/^(text|application)\/javascript; charset=utf-8$/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const deep = await fetch(`${base}/admin/orders/some-id`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toBe(html);
    expect((await fetch(`${base}/admin/assets/missing.js`)).status).toBe(404);
  });

  it('signs in with the keyboard, after showing the API error for a wrong password', async () => {
    await page.goto(`${base}/admin/`);
    await page.getByRole('heading', { name: 'Sign in to your store' }).waitFor();
    await screenshot(page, '01-sign-in');

    // The e-mail field has the focus; Tab moves on, Enter submits.
    await page.keyboard.type(EMAIL);
    await page.keyboard.press('Tab');
    await page.keyboard.type('not the password');
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Wrong e-mail or password');
    expect(await page.getByText('Your session ended').count()).toBe(0);
    await screenshot(page, '02-sign-in-error');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await heading('Overview').waitFor();
    const cookies = await browser.context.cookies();
    const session = cookies.find((c) => c.name === 'emporium_admin');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  });

  it("links to the store's web shop from the top bar, opening it in a new tab", async () => {
    const link = page.getByRole('banner').getByRole('link', { name: /View shop/ });
    expect(await link.getAttribute('href')).toBe(`/shop/${slug}/`);
    expect(await link.getAttribute('target')).toBe('_blank');
    const [shop] = await Promise.all([page.waitForEvent('popup'), link.click()]);
    await shop.waitForLoadState();
    expect(shop.url()).toBe(`${base}/shop/${slug}/`);
    expect((await shop.request.get(shop.url())).status()).toBe(200);
    await shop.getByRole('banner').getByText('Test Store').first().waitFor();
    await shop.close();
  });

  it('creates a product with a downloaded image, then adjusts its stock with a reason', async () => {
    await nav('Products');
    await page.getByText('No products yet').waitFor();
    await page.getByRole('button', { name: 'New product' }).click();
    await heading('New product').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Enamel Mug');
    await page.getByLabel('Description').fill('A sturdy enamel mug.');
    await page.getByLabel('Price (USD)', { exact: true }).fill('12.50');
    await page.getByLabel('SKU', { exact: true }).fill('MUG-1');
    await page.getByLabel('Stock', { exact: true }).fill('20');
    await page.getByRole('button', { name: 'Add image URL' }).click();
    await page.getByLabel('Image URL 1').fill(images.url('/mug.jpg'));
    await page.getByLabel('Alt text').fill('Enamel mug');
    await page.getByLabel('Download the images and host them here').check();
    await page.getByRole('button', { name: 'Create product' }).click();
    await heading('Enamel Mug').waitFor();
    await notice('The product was created.');

    const list = await api.get('/api/v1/products?q=Enamel');
    const product = list.json().data[0];
    expect(product).toMatchObject({ name: 'Enamel Mug', price: '12.50', sku: 'MUG-1', inventory: 20 });
    expect(product.images).toHaveLength(1);
    expect(product.images[0].url).toMatch(new RegExp(`^${base}/media/.+\\.webp$`));
    // Fetched by the server (and by the browser for the form's thumbnail).
    expect(images.hits.get('/mug.jpg')).toBeGreaterThanOrEqual(1);
    productId = product.id;

    await page.getByLabel('Adjustment').fill('5');
    await page.getByLabel('Reason').fill('Restock from supplier');
    await page.getByRole('button', { name: 'Adjust stock' }).click();
    await notice('Stock changed from 20 to 25.');
    await page.getByTestId('inventory-history').getByText('Restock from supplier').waitFor();
    await screenshot(page, '04-product-edit');

    const level = await api.get(`/api/v1/inventory/${productId}`);
    expect(level.json().data.inventory).toBe(25);
    const history = await api.get(`/api/v1/inventory/${productId}/adjustments`);
    expect(history.json().data[0]).toMatchObject({
      adjustment: 5,
      previous: 20,
      inventory: 25,
      reason: 'Restock from supplier',
    });

    await nav('Products');
    await page.getByRole('link', { name: 'Enamel Mug' }).waitFor();
    await screenshot(page, '03-products');
  });

  it('creates a product with options and variants, then edits it', async () => {
    await nav('Products');
    await page.getByRole('button', { name: 'New product' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Linen Shirt');
    await page.getByLabel('Price (USD)', { exact: true }).fill('30.00');
    await page.getByRole('button', { name: 'Add option' }).click();
    await page.getByLabel('Option 1 name').fill('Size');
    await page.getByLabel('Values').fill('S, M');
    await page.getByRole('button', { name: 'Make variants from options' }).click();
    await page.getByLabel('Stock of S', { exact: true }).fill('4');
    await page.getByLabel('Stock of M', { exact: true }).fill('6');
    await page.getByLabel('SKU of M', { exact: true }).fill('SHIRT-M');
    // Issue 31: the product's weight, a variant's own, and whether tax is charged on it.
    await page.getByLabel('Weight (g)', { exact: true }).fill('500');
    await page.getByLabel('Weight in grams of M', { exact: true }).fill('750');
    await page.getByLabel('Charge tax on this product').uncheck();
    await page.getByRole('button', { name: 'Create product' }).click();
    await heading('Linen Shirt').waitFor();
    const created = (await api.get('/api/v1/products?q=Linen')).json().data[0];
    expect(created).toMatchObject({
      price: '30.00',
      inventory: 10,
      options: [{ name: 'Size', values: ['S', 'M'] }],
      weight_grams: 500,
      taxable: false,
    });
    expect(
      created.variants.map(
        (v: { title: string; inventory: number; sku: string | null; weight_grams: number | null }) => [
          v.title,
          v.inventory,
          v.sku,
          v.weight_grams,
        ],
      ),
    ).toEqual([
      ['S', 4, null, null],
      ['M', 6, 'SHIRT-M', 750],
    ]);

    await page.getByLabel('Price (USD)', { exact: true }).fill('32.00');
    await page.getByLabel('Price of M', { exact: true }).fill('34.00');
    await page.getByLabel('Weight in grams of M', { exact: true }).fill('');
    await page.getByLabel('Charge tax on this product').check();
    await page.getByRole('button', { name: 'Save product' }).click();
    await notice('The product was saved.');
    const saved = (await api.get(`/api/v1/products/${created.id}`)).json().data;
    expect(saved).toMatchObject({ price: '32.00', weight_grams: 500, taxable: true });
    expect(saved.variants.map((v: { weight_grams: number | null }) => v.weight_grams)).toEqual([null, null]);
    expect(
      saved.variants.map((v: { id: string; price: string; inventory: number }) => [
        v.id,
        v.price,
        v.inventory,
      ]),
    ).toEqual([
      [created.variants[0].id, '30.00', 4],
      [created.variants[1].id, '34.00', 6],
    ]);
  });

  it('marks low and out-of-stock products in the list, at desktop and phone widths', async () => {
    // The store's default threshold is 5: 2 left is low, 0 is out; the mug (25) is not marked.
    for (const [name, inventory] of [
      ['Tea Towel', 2],
      ['Canvas Apron', 0],
    ] as const) {
      const res = await api.post('/api/v1/products', { name, price: '8.00', inventory });
      expect(res.statusCode, res.body).toBe(201);
    }
    await nav('Products');
    const row = (name: string) => page.getByRole('row').filter({ hasText: name });
    await row('Tea Towel').getByText('Low stock', { exact: true }).waitFor();
    await row('Canvas Apron').getByText('Out of stock', { exact: true }).waitFor();
    expect(
      await row('Enamel Mug')
        .getByText(/stock$/i)
        .count(),
    ).toBe(0);
    await screenshot(page, '03-products-stock');
    await page.setViewportSize({ width: 390, height: 844 });
    await row('Tea Towel').getByText('Low stock', { exact: true }).waitFor();
    await screenshot(page, 'phone-products-stock');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('creates a category, and deletes another only after confirming', async () => {
    await nav('Categories');
    for (const name of ['Kitchen', 'Temporary']) {
      await page.getByRole('button', { name: 'New category' }).click();
      await dialog().getByLabel('Name', { exact: true }).fill(name);
      await dialog().getByLabel('Name', { exact: true }).press('Enter');
      await notice(`${name} was created.`);
    }
    const names = (await api.get('/api/v1/categories')).json().data.map((c: { name: string }) => c.name);
    expect(names.sort()).toEqual(['Kitchen', 'Temporary']);

    // Cancel the confirmation: nothing is deleted.
    await page.getByRole('button', { name: 'Delete Temporary' }).click();
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    expect((await api.get('/api/v1/categories')).json().data).toHaveLength(2);
    await page.getByRole('button', { name: 'Delete Temporary' }).click();
    await dialog().getByRole('button', { name: 'Delete category' }).click();
    await notice('Temporary was deleted.');
    const left = (await api.get('/api/v1/categories')).json().data;
    expect(left.map((c: { name: string }) => c.name)).toEqual(['Kitchen']);
    await screenshot(page, '05-categories');
  });

  it('creates a discount code, and shows the API conflict for a duplicate code', async () => {
    await nav('Discounts');
    await page.getByRole('button', { name: 'New discount' }).click();
    await dialog().getByLabel('Code', { exact: true }).fill('save10');
    await dialog().getByLabel('Title').fill('Ten percent off');
    await dialog().getByLabel('Value (%)').fill('10');
    await dialog().getByRole('button', { name: 'Create discount' }).click();
    await notice('SAVE10 was created.');
    const discounts = (await api.get('/api/v1/discounts?q=SAVE10')).json().data;
    expect(discounts).toHaveLength(1);
    expect(discounts[0]).toMatchObject({
      code: 'SAVE10',
      type: 'percentage',
      active: true,
      title: 'Ten percent off',
    });
    expect(Number(discounts[0].value)).toBe(10);

    await page.getByRole('button', { name: 'New discount' }).click();
    await dialog().getByLabel('Code', { exact: true }).fill('SAVE10');
    await dialog().getByLabel('Value (%)').fill('5');
    await dialog().getByRole('button', { name: 'Create discount' }).click();
    const alert = dialog().getByRole('alert');
    await alert.waitFor();
    // The API's own message for the same request, shown as it is.
    const answer = await api.post('/api/v1/discounts', { code: 'SAVE10', type: 'percentage', value: '5' });
    expect(answer.statusCode).toBe(409);
    expect(await alert.textContent()).toContain(answer.json().error.message);
    await screenshot(page, '06-discount-conflict');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    expect((await api.get('/api/v1/discounts')).json().data).toHaveLength(1);
    await screenshot(page, '06-discounts');
  });

  it('marks an order paid and fulfils it with tracking', async () => {
    const order = await orderByApi([{ product_id: productId, quantity: 2 }], 'grace@example.com');
    await nav('Orders');
    await page.getByLabel('Payment').selectOption('unpaid');
    await page.getByRole('link', { name: `#${order.order_number}` }).waitFor();
    await screenshot(page, '07-orders');
    await page.getByRole('link', { name: `#${order.order_number}` }).click();
    await heading(`Order #${order.order_number}`).waitFor();

    await page.getByRole('button', { name: 'Mark as paid' }).click();
    await dialog().getByRole('button', { name: 'Mark as paid' }).click();
    await notice('The payment was recorded.');
    let saved = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
    expect(saved).toMatchObject({ status: 'processing', payment_status: 'paid', balance_due: 0 });

    await page.getByRole('button', { name: 'Fulfil' }).click();
    await dialog().getByLabel('Carrier').fill('UPS');
    await dialog().getByLabel('Tracking number').fill('1Z999AA10123456784');
    await dialog().getByLabel('Tracking URL').fill('https://track.example.com/1Z999AA10123456784');
    await dialog().getByRole('button', { name: 'Fulfil order' }).click();
    await notice('The order was fulfilled.');
    await page.getByTestId('fulfilment').getByText('1Z999AA10123456784').waitFor();
    saved = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
    expect(saved).toMatchObject({ status: 'completed', fulfillment_status: 'fulfilled' });
    expect(saved.fulfillments[0]).toMatchObject({ carrier: 'UPS', tracking_number: '1Z999AA10123456784' });
    await screenshot(page, '08-order-detail');
  });

  it("edits items with the server's preview of the new total (discount, shipping and the store-wide tax frozen)", async () => {
    // 12.50 + shipping 5.00 + tax 10 % of 12.50 = 18.75.
    const order = await orderByApi([{ product_id: productId, quantity: 1 }], 'ada@example.com');
    expect(order.total).toBe(18.75);
    await openOrder(order.order_number);
    await page.getByRole('button', { name: 'Edit items' }).click();
    await dialog().getByLabel('Quantity of Enamel Mug').fill('3');
    // 37.50 + 5.00 + 1.25 (tax frozen) = 43.75; difference +25.00.
    const preview = dialog().getByTestId('edit-preview');
    await preview.getByText('$43.75').waitFor();
    expect(await dialog().getByTestId('preview-total').textContent()).toBe('$43.75');
    expect(await dialog().getByTestId('preview-difference').textContent()).toBe('+$25.00');
    expect(await dialog().getByTestId('preview-tax-line').textContent()).toBe('$1.25');
    await screenshot(page, '09-order-edit-preview');
    // Nothing is saved before the button is pressed.
    expect((await api.get(`/api/v1/orders/${order.id}`)).json().data.total).toBe(18.75);

    // A new line from the catalogue: + 12.50.
    await dialog().getByLabel('Find a product to add').fill('Enamel');
    await dialog().getByLabel('Find a product to add').press('Enter');
    await dialog().getByRole('button', { name: 'Add Enamel Mug' }).click();
    await preview.getByText('$56.25').waitFor();
    expect(await dialog().getByTestId('preview-difference').textContent()).toBe('+$37.50');

    await dialog().getByRole('button', { name: 'Save changes' }).click();
    await notice('The items were saved. New total $56.25 (+$37.50).');
    const saved = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
    expect(saved).toMatchObject({ subtotal: 50, shipping_amount: 5, tax_amount: 1.25, total: 56.25 });
    expect(saved.line_items.map((l: { quantity: number; price: number }) => [l.quantity, l.price])).toEqual([
      [3, 12.5],
      [1, 12.5],
    ]);
    await page.getByTestId('order-total').getByText('$56.25').waitFor();
  });

  it('cancels an order with a reason, putting the items back in stock', async () => {
    const stock = async () =>
      (await api.get(`/api/v1/inventory/${productId}`)).json().data.inventory as number;
    const before = await stock();
    const order = await orderByApi([{ product_id: productId, quantity: 2 }], 'grace@example.com');
    expect(await stock()).toBe(before - 2);
    await openOrder(order.order_number);
    await page.getByRole('button', { name: 'Cancel order' }).click();
    await dialog().getByLabel('Reason').fill('Customer changed their mind');
    expect(await dialog().getByLabel('Put the items back in stock').isChecked()).toBe(true);
    await screenshot(page, '09-order-cancel');
    await dialog().getByRole('button', { name: 'Cancel order' }).click();
    await notice('The order was cancelled.');
    const saved = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
    expect(saved).toMatchObject({ status: 'cancelled', cancel_reason: 'Customer changed their mind' });
    expect(await stock()).toBe(before);
    expect(await page.getByRole('button', { name: 'Mark as paid' }).count()).toBe(0);
  });

  it('lists customers and opens one with their orders', async () => {
    await nav('Customers');
    await page.getByRole('link', { name: 'Grace Hopper' }).first().waitFor();
    await screenshot(page, '10-customers');
    const customers = (await api.get('/api/v1/customers?q=grace@example.com')).json().data;
    expect(customers).toHaveLength(1);
    await page.getByLabel('Search customers').fill('grace@example.com');
    await page.getByLabel('Search customers').press('Enter');
    await page.getByText('ada@example.com').waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Grace Hopper' }).click();
    await heading('Grace Hopper').waitFor();
    await page
      .getByRole('link', { name: /^#\d+$/ })
      .first()
      .waitFor();
    await screenshot(page, '11-customer-detail');
  });

  it('creates a webhook (secret shown once), sends a test, shows the delivery log and retries', async () => {
    await nav('Webhooks');
    await page.getByRole('button', { name: 'New webhook' }).click();
    await dialog().getByLabel('Endpoint URL').fill(`${receiver.url}/emporium`);
    await dialog().getByLabel('Description').fill('Back office');
    await dialog().getByRole('button', { name: 'Create webhook' }).click();
    const secret = (await dialog().getByTestId('secret-value').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    webhookSecret = secret;
    await screenshot(page, '12-webhook-secret');
    await dialog().getByRole('button', { name: 'I have copied it' }).click();
    await heading('Back office').waitFor();

    const hooks = (await api.get('/api/v1/webhooks')).json().data;
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({ url: `${receiver.url}/emporium`, active: true });
    expect(hooks[0].events.sort()).toEqual([
      'order.cancelled',
      'order.created',
      'order.paid',
      'order.updated',
    ]);
    webhookId = hooks[0].id;
    // The secret is never readable again.
    expect((await api.get(`/api/v1/webhooks/${webhookId}`)).json().data.secret).toBeUndefined();

    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByTestId('test-result').getByText('Test delivered: HTTP 200').waitFor();
    const test = receiver.received[before];
    expect(test?.headers['x-webhook-test']).toBe('true');
    expect(test?.headers['x-webhook-signature']).toBe(
      `sha256=${createHmac('sha256', webhookSecret)
        .update(test?.body ?? '')
        .digest('hex')}`,
    );

    // The log shows the exact bytes posted, and the receiver's answer.
    const attempt = page.getByTestId('delivery-attempt').first();
    await attempt.locator('summary').click();
    expect(await attempt.getByTestId('attempt-request').textContent()).toContain(test?.body);
    expect(await attempt.getByTestId('attempt-response').textContent()).toContain('HTTP 200');
    await screenshot(page, '13-webhook-detail');

    await attempt.getByRole('button', { name: 'Send again now' }).click();
    await notice('Sent again: HTTP 200.');
    await receiver.waitFor(() => receiver.received.length === before + 2);
    expect(receiver.received[before + 1]?.headers['x-webhook-id']).toBe(test?.headers['x-webhook-id']);
    const log = (await api.get(`/api/v1/webhooks/${webhookId}/deliveries`)).json().data;
    expect(log).toHaveLength(2);

    // Disabling asks first; a disabled webhook shows why and is enabled again with one button.
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await dialog().getByRole('button', { name: 'Disable', exact: true }).click();
    await page.getByText('This webhook is disabled.').waitFor();
    expect((await api.get(`/api/v1/webhooks/${webhookId}`)).json().data.active).toBe(false);
    await screenshot(page, '13-webhook-disabled');
    await page.getByRole('button', { name: 'Enable again' }).click();
    await notice('The webhook is enabled again.');
    expect((await api.get(`/api/v1/webhooks/${webhookId}`)).json().data.active).toBe(true);
  });

  it('a payment and a later edit made in the dashboard reach the receiver with source admin', async () => {
    const order = await orderByApi([{ product_id: productId, quantity: 1 }], 'linus@example.com');
    await openOrder(order.order_number);
    await page.getByRole('button', { name: 'Mark as paid' }).click();
    await dialog().getByRole('button', { name: 'Mark as paid' }).click();
    await notice('The payment was recorded.');

    await page.getByLabel('Internal notes').fill('Gift wrap, please');
    await page.getByRole('button', { name: 'Save notes' }).click();
    await notice('The notes were saved.');

    const events = () =>
      receiver.received
        .filter((r) => r.path === '/emporium' && !r.headers['x-webhook-test'])
        .map((r) => JSON.parse(r.body) as { event: string; data: Record<string, unknown> })
        .filter((e) => e.data.orderId === order.id);
    await receiver.waitFor(
      () =>
        events().some(
          (e) =>
            e.event === 'order.updated' &&
            (e.data.changes as object) &&
            'notes' in (e.data.changes as object),
        ),
      20_000,
    );
    const received = events();
    expect(received.map((e) => e.event)).toEqual(
      expect.arrayContaining(['order.created', 'order.paid', 'order.updated']),
    );
    const created = received.find((e) => e.event === 'order.created');
    expect(created).toBeDefined();
    const updates = received.filter((e) => e.event === 'order.updated');
    expect(updates.length).toBeGreaterThanOrEqual(2);
    for (const update of updates) expect(update.data.source).toBe('admin');
    const changesOf = (e: { data: Record<string, unknown> } | undefined) =>
      (e?.data.changes ?? {}) as Record<string, unknown>;
    const notes = updates.find((e) => 'notes' in changesOf(e));
    expect(changesOf(notes).notes).toEqual({
      before: null,
      after: 'Gift wrap, please',
    });
    const paid = updates.find((e) => 'paymentStatus' in changesOf(e));
    expect(changesOf(paid).paymentStatus).toEqual({
      before: 'unpaid',
      after: 'paid',
    });
  });

  it('changes the store settings and the mobile app config (validated before saving)', async () => {
    await nav('Settings');
    // Orders were placed above, after sign-in: the currency is fixed now, and the field says why.
    await page.getByText(/^Fixed: the store has orders in USD/).waitFor();
    expect(await page.getByLabel('Currency').isDisabled()).toBe(true);
    await page.getByLabel('Store name').fill('Dashboard Test Store');
    await page.getByLabel('Primary', { exact: true }).fill('#112233');
    await page.getByLabel('Tax rate (%)').fill('8.25');
    await page.getByLabel('Low-stock threshold').fill('3');
    await page.getByLabel('Contact e-mail').fill('orders@dashboard-test.example');
    // A custom domain with a scheme names the field; the hostname alone is saved, lower-cased.
    const domain = page.getByLabel('Custom domain');
    await page.getByText("Point the domain's DNS at this server").waitFor();
    await domain.fill('https://Shop.Dashboard-Test.example');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page
      .getByText(/no scheme, port or path/)
      .first()
      .waitFor();
    await domain.fill('Shop.Dashboard-Test.example');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await notice('The settings were saved.');
    expect((await app.services.stores.getStore(storeId)).custom_domain).toBe('shop.dashboard-test.example');
    const config = (await api.get(`/api/storefront/${slug}/config`)).json().data;
    expect(config.name).toBe('Dashboard Test Store');
    expect(config.colors.primary).toBe('#112233');
    const store = await app.services.stores.getStore(storeId);
    expect(store).toMatchObject({
      tax_rate_bps: 825,
      low_stock_threshold: 3,
      contact_email: 'orders@dashboard-test.example',
    });
    // The top bar follows the new name, and its shop link the custom domain, which serves the shop.
    await page.getByRole('banner').getByText('Dashboard Test Store').waitFor();
    const shopLink = page.getByRole('banner').getByRole('link', { name: /View shop/ });
    expect(await shopLink.getAttribute('href')).toBe('http://shop.dashboard-test.example/');
    const onDomain = await app.server.inject({
      method: 'GET',
      url: '/',
      headers: { host: 'shop.dashboard-test.example' },
    });
    expect(onDomain.statusCode).toBe(200);
    expect(onDomain.body).toContain('Dashboard Test Store');

    const editor = page.getByLabel('App config JSON');
    await editor.fill('{ "theme": ');
    await page.getByText(/^Not valid JSON/).waitFor();
    expect(await page.getByRole('button', { name: 'Save app config' }).isDisabled()).toBe(true);
    await editor.fill('[1, 2]');
    await page.getByText('The app config must be a JSON object').waitFor();
    await editor.fill('{"theme": {"mode": "dark"}, "features": {"wishlist": true}}');
    await page.getByText(/^Valid JSON object/).waitFor();
    await page.getByRole('button', { name: 'Save app config' }).click();
    await notice('The app config was saved.');
    const appConfig = (await api.get(`/api/storefront/${slug}/app-config`)).json().data;
    expect(appConfig).toEqual({ theme: { mode: 'dark' }, features: { wishlist: true } });
    await screenshot(page, '14-settings');
  });

  it('creates an API key with chosen scopes (shown once) that works, then revokes it', async () => {
    await page.getByRole('button', { name: 'New API key' }).click();
    await dialog().getByLabel('Name').fill('Reporting');
    await dialog().getByRole('checkbox', { name: 'orders:read', exact: true }).check();
    await dialog().getByRole('checkbox', { name: 'customers:read', exact: true }).check();
    await dialog().getByRole('button', { name: 'Create key' }).click();
    const key = (await dialog().getByTestId('secret-value').textContent()) ?? '';
    expect(key).toMatch(/^sk_/);
    await screenshot(page, '15-api-key-created');
    await dialog().getByRole('button', { name: 'I have copied it' }).click();

    const withKey = client(app, key);
    expect((await withKey.get('/api/v1/orders')).statusCode).toBe(200);
    expect((await withKey.get('/api/v1/customers')).statusCode).toBe(200);
    expect((await withKey.get('/api/v1/products')).statusCode).toBe(403);

    await page.getByRole('button', { name: 'Revoke Reporting' }).click();
    await dialog().getByRole('button', { name: 'Revoke key' }).click();
    await notice('Reporting was revoked.');
    expect((await withKey.get('/api/v1/orders')).statusCode).toBe(401);
    await screenshot(page, '16-api-keys');
  });

  it('shows the overview with the previous-period comparison, and a friendly state without analytics', async () => {
    await nav('Overview');
    // The analytics endpoint's answer: the charts, or (on a server without it) the empty state.
    const outcome = page
      .getByText('compared with the period just before it')
      .or(page.getByText('Analytics are not available yet'))
      .or(page.getByRole('alert'));
    await outcome.first().waitFor();
    await screenshot(page, '00-overview');
    const analytics = await api.get('/api/v1/analytics');
    if (analytics.statusCode === 200) {
      expect(
        await page.getByRole('alert').count(),
        await page.getByRole('alert').allTextContents().then(String),
      ).toBe(0);
      const totals = analytics.json().data.totals;
      await page.getByText('Revenue', { exact: true }).first().waitFor();
      expect(
        await page.locator('.kpi').filter({ hasText: 'Orders' }).first().locator('.kpi-value').textContent(),
      ).toBe(String(totals.orders));
      await page.locator('svg[aria-label^="Revenue by"]').waitFor();
    } else {
      expect(analytics.statusCode).toBe(404);
      await page.getByText('Analytics are not available yet').waitFor();
    }

    await page.route('**/api/v1/analytics**', (route) =>
      route.fulfill({
        status: 404,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'not_found', message: 'No route for GET /api/v1/analytics' } }),
      }),
    );
    await page.getByLabel('Period').selectOption('7d');
    await page.getByText('Analytics are not available yet').waitFor();
    await page.unroute('**/api/v1/analytics**');
  });

  it('works at phone width: every page fits 390 px and the menu navigates', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const pages = [
      '/',
      '/orders',
      '/products',
      `/products/${productId}`,
      '/categories',
      '/discounts',
      '/customers',
      '/webhooks',
      `/webhooks/${webhookId}`,
      '/settings',
    ];
    for (const path of pages) {
      await page.goto(`${base}/admin${path}`);
      await page.locator('main h1').waitFor();
      await page.getByRole('status').filter({ hasText: 'Loading' }).first().waitFor({ state: 'detached' });
      const overflow = await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow, `horizontal overflow on ${path}`).toBeLessThanOrEqual(0);
      const name = path === '/' ? 'overview' : path.slice(1).replace(/\/[0-9a-f-]{36}$/, '-detail');
      await screenshot(page, `phone-${name}`);
    }
    await page.getByRole('button', { name: 'Menu' }).click();
    // The narrow top bar has no room for the shop link: the menu carries it.
    const shopLink = page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: /View shop/ });
    expect(await shopLink.getAttribute('href')).toBe('http://shop.dashboard-test.example/');
    expect(
      await page
        .getByRole('banner')
        .getByRole('link', { name: /View shop/ })
        .count(),
    ).toBe(0);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Orders' }).click();
    await heading('Orders').waitFor();
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('signs out: the session cookie no longer opens the API', async () => {
    const cookie = (await browser.context.cookies()).find((c) => c.name === 'emporium_admin');
    expect(cookie).toBeDefined();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to your store' }).waitFor();
    const me = await app.server.inject({
      method: 'GET',
      url: '/api/admin/me',
      headers: { cookie: `emporium_admin=${cookie?.value}` },
    });
    expect(me.statusCode).toBe(401);
    expect(pageErrors).toEqual([]);
  });
});
