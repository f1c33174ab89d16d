import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, sizedProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { freePort } from '../helpers/processes.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * Two dashboard pages open on the same resource (issue 30, item 1): the later save keeps the
 * earlier one's fields (only changed fields are sent, with If-Match), and when both changed the
 * same field the later one is refused with a message naming it and a Reload button.
 */
describe.skipIf(!hasChromium())('two pages editing the same resource', () => {
  const EMAIL = 'owner@concurrent.test';
  const PASSWORD = 'correct horse battery staple';
  let app: TestApp;
  let api: Client;
  let base: string;
  let storeId: string;
  let first: LaunchedBrowser;
  let second: LaunchedBrowser;
  let a: Page;
  let b: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const store = await createStoreWithKey(app, { slug: `two-pages-${port}` });
    api = client(app, store.key);
    storeId = store.store.id;
    await app.services.stores.createAdminUser({
      email: EMAIL,
      password: PASSWORD,
      storeSlug: store.store.slug,
    });
    first = await launchBrowser();
    second = await launchBrowser();
    a = first.page;
    b = second.page;
    for (const page of [a, b]) {
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(`${base}/admin/`);
      await page.getByRole('heading', { name: 'Sign in to your store' }).waitFor();
      await page.keyboard.type(EMAIL);
      await page.keyboard.press('Tab');
      await page.keyboard.type(PASSWORD);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    }
  });

  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await first?.close();
    await second?.close();
    await app?.close();
  });

  const open = async (page: Page, path: string, heading: string | RegExp) => {
    await page.goto(`${base}/admin${path}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    await page.waitForLoadState('networkidle');
  };
  const saved = (page: Page, text: string) => page.getByText(text).first().waitFor();

  async function photograph(page: Page, name: string) {
    await screenshot(page, `${name}-1280`);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, `${name}-390`);
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it('settings: a tax-rate save keeps the other page’s rename; the same field twice is refused, Reload shows it', async () => {
    await open(a, '/settings', 'Settings');
    await open(b, '/settings', 'Settings');

    await a.getByLabel('Store name').fill('Renamed in A');
    await a.getByRole('button', { name: 'Save settings' }).click();
    await saved(a, 'The settings were saved.');

    await b.getByLabel('Tax rate (%)').fill('7');
    await b.getByRole('button', { name: 'Save settings' }).click();
    await saved(b, 'The settings were saved.');
    const settings = await app.services.stores.getSettings(storeId);
    expect(settings.name).toBe('Renamed in A');
    expect(settings.tax_rate_bps).toBe(700);

    // Both change the tax rate: A starts from the latest version, B's page holds the one before.
    await open(a, '/settings', 'Settings');
    expect(await a.getByLabel('Tax rate (%)').inputValue()).toBe('7');
    await a.getByLabel('Tax rate (%)').fill('8');
    await a.getByRole('button', { name: 'Save settings' }).click();
    await saved(a, 'The settings were saved.');
    await b.getByLabel('Tax rate (%)').fill('9');
    await b.getByRole('button', { name: 'Save settings' }).click();
    const alert = b.getByRole('alert').filter({ hasText: 'Someone else changed' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      "Someone else changed this store's settings since you opened it: tax rate.",
    );
    await photograph(b, 'concurrent-settings-412');
    await alert.getByRole('button', { name: 'Reload' }).click();
    expect(await b.getByLabel('Tax rate (%)').inputValue()).toBe('8');
    expect(await b.getByLabel('Store name').inputValue()).toBe('Renamed in A');
    expect(await b.getByText('Someone else changed').count()).toBe(0);
  });

  it('product with variants: a rename keeps the other page’s variant price; two variant edits: 412 and Reload', async () => {
    const product = await createProduct(api, sizedProduct({ S: 3, M: 4 }));
    const path = `/products/${product.id}`;
    await open(a, path, product.name);
    await open(b, path, product.name);

    await a.getByLabel('Price of S', { exact: true }).fill('28.00');
    await a.getByRole('button', { name: 'Save product' }).click();
    await saved(a, 'The product was saved.');

    await b.getByLabel('Name', { exact: true }).fill('Renamed in B');
    await b.getByRole('button', { name: 'Save product' }).click();
    await saved(b, 'The product was saved.');
    let now = (await api.get(`/api/v1/products/${product.id}`)).json().data;
    expect(now.name).toBe('Renamed in B');
    expect(now.variants.map((v: { price: string }) => v.price)).toEqual(['28.00', '22.50']);

    // Both edit the variants (one list, replaced as a whole): the later save is refused.
    await a.reload();
    await a.getByRole('heading', { level: 1, name: 'Renamed in B' }).waitFor();
    await a.getByLabel('Price of M', { exact: true }).fill('26.00');
    await a.getByRole('button', { name: 'Save product' }).click();
    await saved(a, 'The product was saved.');
    await b.getByLabel('Price of S', { exact: true }).fill('27.00');
    await b.getByRole('button', { name: 'Save product' }).click();
    const alert = b.getByRole('alert').filter({ hasText: 'Someone else changed' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      'Someone else changed this product since you opened it: variants.',
    );
    await photograph(b, 'concurrent-product-412');
    now = (await api.get(`/api/v1/products/${product.id}`)).json().data;
    expect(now.variants.map((v: { price: string }) => v.price)).toEqual(['28.00', '26.00']);
    await alert.getByRole('button', { name: 'Reload' }).click();
    expect(await b.getByLabel('Price of M', { exact: true }).inputValue()).toBe('26.00');
    expect(await b.getByLabel('Price of S', { exact: true }).inputValue()).toBe('28.00');
  });
});
