import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { createOrder, setPricing } from '../helpers/order-factories.js';
import { freePort } from '../helpers/processes.js';
import { createTaxRegion, setProductFacts } from '../helpers/region-factories.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * The Edit items form of an order with a tax region (19 % VAT, shipping taxed) in Chromium: its
 * preview is the server's dry run of the edit, retaxed, shown per tax line with "Updating…" while it
 * is asked, field errors beside their field, and the saved order is what the preview showed.
 */
describe.skipIf(!hasChromium())('the order edit preview in the dashboard', () => {
  const EMAIL = 'owner@edit-preview.test';
  const PASSWORD = 'correct horse battery staple';
  let app: TestApp;
  let api: Client;
  let base: string;
  let browser: LaunchedBrowser;
  let page: Page;
  let mugId: string;
  let bookId: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const store = await createStoreWithKey(app, { slug: `edit-preview-${port}` });
    api = client(app, store.key);
    await app.services.stores.createAdminUser({
      email: EMAIL,
      password: PASSWORD,
      storeSlug: store.store.slug,
    });
    await setPricing(app, store.store.id, { shipping_flat_rate: 500, tax_rate_bps: 0 });
    await createTaxRegion({ api }, { country: 'DE', name: 'VAT', rate: '19', shipping_taxable: true });
    mugId = (await createProduct(api, { name: 'Mug', price: '20.00', inventory: 5 })).id;
    bookId = (await createProduct(api, { name: 'Book', price: '10.00', inventory: 50 })).id;
    await setProductFacts(api, bookId, { taxable: false });
    browser = await launchBrowser();
    page = browser.page;
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const dialog = () => page.getByRole('dialog');
  const text = async (testId: string) => dialog().getByTestId(testId).first().textContent();

  it('shows the retaxed totals the server computes, and saves exactly them', async () => {
    // 2 mugs (taxable) and a book (not), paid: 50.00 + 5.00 + 19 % of 40.00 and of 5.00 = 63.55.
    const order = await createOrder(api, {
      items: [
        { product_id: mugId, quantity: 2 },
        { product_id: bookId, quantity: 1 },
      ],
      shipping_address: { line1: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country: 'DE' },
      mark_paid: true,
    });
    expect(order).toMatchObject({ tax_amount: 8.55, total: 63.55 });

    await page.goto(`${base}/admin/`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.goto(`${base}/admin/orders/${order.id}`);
    await page.getByRole('heading', { level: 1, name: `Order #${order.order_number}` }).waitFor();
    await page.getByRole('button', { name: 'Edit items' }).click();
    // Before any change: the order's own amounts, its tax line named.
    expect(await text('preview-total')).toBe('$63.55');
    await dialog().getByText('VAT 19 %').waitFor();

    // The preview is asked as the merchant types; held back here so its waiting state shows.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/edit-items', async (route) => {
      if (route.request().postDataJSON()?.dry_run === true) await held;
      await route.continue();
    });
    await dialog().getByLabel('Quantity of Mug').fill('3');
    await dialog().getByTestId('preview-updating').waitFor();
    expect(await dialog().getByTestId('edit-preview').getAttribute('aria-busy')).toBe('true');
    release();
    // 60.00 of mugs: 19 % of 60.00 (11.40) and of the shipping (0.95) = 12.35; 70 + 5 + 12.35.
    await dialog().getByTestId('preview-total').getByText('$87.35').waitFor();
    await dialog().getByTestId('preview-updating').waitFor({ state: 'detached' });
    expect(await text('preview-tax-line')).toBe('$12.35');
    expect(await text('preview-difference')).toBe('+$23.80');
    await dialog().getByText('The customer would owe $23.80').waitFor();
    await page.unroute('**/edit-items');
    await screenshot(page, 'order-edit-preview-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'order-edit-preview-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    // Still nothing saved.
    expect((await api.get(`/api/v1/orders/${order.id}`)).json().data.total).toBe(63.55);

    // A malformed quantity is shown on its field (nothing asked); a refusal of the server, too.
    await dialog().getByLabel('Quantity of Book').fill('0');
    const bookQuantity = dialog().getByLabel('Quantity of Book');
    await dialog().getByText('A whole number of at least 1 (remove the line instead)').waitFor();
    expect(await bookQuantity.getAttribute('aria-invalid')).toBe('true');
    await bookQuantity.fill('1');
    await dialog().getByLabel('Quantity of Mug').fill('9');
    await dialog().getByText('not enough stock of Mug: 3 left').waitFor();
    await screenshot(page, 'order-edit-preview-refused');
    await dialog().getByLabel('Quantity of Mug').fill('3');
    // The server's 400 naming `add.0.price` lands on that row's price.
    await dialog().getByLabel('Find a product to add').fill('Book');
    await dialog().getByLabel('Find a product to add').press('Enter');
    await dialog().getByRole('button', { name: 'Add Book' }).click();
    const price = dialog().getByLabel('Price of Book');
    await price.fill('9999999999999');
    await dialog().getByText('must be at most 100000000000.00').waitFor();
    expect(await price.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'order-edit-preview-field-error');
    await dialog().getByRole('button', { name: 'Remove Book' }).last().click();
    await dialog().getByTestId('preview-total').getByText('$87.35').waitFor();

    await dialog().getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('The items were saved. New total $87.35 (+$23.80).').waitFor();
    const saved = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
    expect(saved).toMatchObject({
      subtotal: 70,
      shipping_amount: 5,
      tax_amount: 12.35,
      tax_lines: [{ name: 'VAT', rate: '19', amount: 12.35 }],
      total: 87.35,
      balance_due: 23.8,
      payment_status: 'partially_paid',
    });
    expect(pageErrors).toEqual([]);
  });
});
