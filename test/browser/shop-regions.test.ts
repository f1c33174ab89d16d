import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  type ProductData,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { freePort } from '../helpers/processes.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * The checkout across regions (contract §12) in Debian's Chromium, against a real server on a port,
 * at 390 and 1280 px: the country chosen brings its shipping options without a page load (the
 * `shipping` island), a country the store does not ship to is said next to the field, the buyer
 * picks the dearer option and pays with the test card; the summary shows the method and "VAT 19 %",
 * the confirmation too, and the merchant API has the order with that method. Every page photographed
 * is checked by axe-core.
 */
describe.skipIf(!hasChromium())('shop checkout across regions in Chromium', () => {
  let app: TestApp;
  let api: Client;
  let base: string;
  let slug: string;
  let lamp: ProductData;
  const browsers: LaunchedBrowser[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const made = await createStoreWithKey(app, { slug: `atlas-${port}` });
    slug = made.store.slug;
    api = client(app, made.key);
    const settings = await api.patch('/api/v1/store', { name: 'Atlas Lamps', currency: 'EUR' });
    expect(settings.statusCode, settings.body).toBe(200);
    const zone = await api.post('/api/v1/shipping-zones', {
      name: 'Europe',
      countries: ['DE', 'AT', 'FR'],
      rates: [
        { name: 'Express', price: '14.90', delivery_days_min: 1, delivery_days_max: 2 },
        { name: 'Standard', price: '4.90', delivery_days_min: 2, delivery_days_max: 4 },
      ],
    });
    expect(zone.statusCode, zone.body).toBe(201);
    const vat = await api.post('/api/v1/tax-regions', { country: 'DE', name: 'VAT', rate: '19' });
    expect(vat.statusCode, vat.body).toBe(201);
    lamp = await createProduct(api, { name: 'Desk Lamp', price: '20.00', inventory: 50 });
  });

  afterAll(async () => {
    for (const b of browsers) await b.close();
    await app?.close();
  });

  async function journey(width: number, email: string) {
    const browser = await launchBrowser({ width, height: 900 });
    browsers.push(browser);
    const { page } = browser;
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const shot = (name: string) => screenshot(page, `shop-regions-${width}-${name}`);

    await page.goto(`${base}/shop/${slug}/products/${lamp.slug}`);
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your cart' }).waitFor();
    await page.getByText('Calculated from your address').first().waitFor();
    await page.getByRole('link', { name: 'Checkout' }).click();
    await page.getByRole('heading', { level: 1, name: 'Checkout' }).waitFor();
    await page.getByText('Choose your country, then update the shipping options').waitFor();

    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('Address', { exact: true }).fill('Unter den Linden 1');
    await page.getByLabel('City').fill('Berlin');
    await page.getByLabel('Postal code').fill('10117');

    // A country the store does not ship to: said next to the field, without a page load.
    const country = page.getByLabel('Country');
    await country.selectOption('BR');
    await page
      .locator('#checkout-country-error')
      .filter({ hasText: "We don't ship to Brazil yet." })
      .waitFor();
    expect(await country.getAttribute('aria-invalid')).toBe('true');
    await shot('01-not-shipped');

    // Germany: its options, cheapest first and checked; the typed fields are untouched.
    await country.selectOption('DE');
    const standard = page.getByRole('radio', { name: /Standard/ });
    const express = page.getByRole('radio', { name: /Express/ });
    await standard.waitFor();
    expect(await page.locator('#checkout-country-error').count()).toBe(0);
    expect(await standard.isChecked()).toBe(true);
    expect(await page.getByLabel('City').inputValue()).toBe('Berlin');
    expect(await page.getByText('2–4 business days').count()).toBe(1);
    await shot('02-options');

    await express.check();
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('group', { name: 'Payment method' }).waitFor();
    expect(await page.getByRole('radio', { name: /Express/ }).isChecked()).toBe(true);
    const summary = page.locator('.summary-card');
    await summary.getByText('Shipping (Express)').waitFor();
    // 20.00 + 14.90 + VAT 19 % of 20.00 = 38.70.
    expect((await summary.textContent())?.replace(/\s+/g, ' ')).toContain('VAT 19 %€3.80');
    await page.getByRole('button', { name: 'Place order · €38.70' }).waitFor();
    await shot('03-payment');

    // Another option picked on the payment step is saved at once: the summary and the total follow.
    expect(await page.getByRole('button', { name: 'Use this shipping method' }).isVisible()).toBe(false);
    await page.getByRole('radio', { name: /Standard/ }).check();
    await page.getByRole('button', { name: 'Place order · €28.70' }).waitFor();
    await page.locator('.summary-card').getByText('Shipping (Standard)').waitFor();
    await page.getByRole('radio', { name: /Express/ }).check();
    await page.getByRole('button', { name: 'Place order · €38.70' }).waitFor();

    await page.getByLabel('Test card to use').selectOption('tok_visa');
    await page.getByRole('button', { name: /^Place order/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Thank you for your order' }).waitFor();
    await page.getByText('Shipping (Express)').waitFor();
    await page.getByText('VAT 19 %').waitFor();
    await shot('04-confirmation');

    const list = (await api.get('/api/v1/orders?limit=100')).json().data as {
      id: string;
      customer: { email: string };
    }[];
    const mine = list.filter((o) => o.customer.email === email);
    expect(mine).toHaveLength(1);
    const order = (await api.get(`/api/v1/orders/${mine[0]?.id}`)).json().data;
    expect(order).toMatchObject({
      payment_status: 'paid',
      shipping_method: { name: 'Express' },
      shipping_amount: 14.9,
      tax_lines: [{ name: 'VAT', rate: '19', amount: 3.8 }],
      total: 38.7,
    });
    expect(errors).toEqual([]);
  }

  it('at 1280 px: options for the country, a refused country, the dearer option chosen and paid', async () => {
    await journey(1280, 'ada.desktop@example.com');
  }, 120_000);

  it('the same at 390 px wide', async () => {
    await journey(390, 'ada.phone@example.com');
  }, 120_000);
});
