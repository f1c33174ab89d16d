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

  const editIn = async (page: Page, path: string, heading: string, button: string) => {
    await open(page, path, heading);
    await page.getByRole('button', { name: button, exact: true }).click();
    await page.getByRole('dialog').waitFor();
    await page.waitForLoadState('networkidle');
  };
  const saveIn = async (page: Page, label: string) => {
    await page.getByRole('dialog').getByRole('button', { name: label }).click();
  };
  const closed = (page: Page) => page.getByRole('dialog').waitFor({ state: 'hidden' });

  it('discount: a usage-limit save keeps the other page’s title; the same field twice is refused', async () => {
    const res = await api.post('/api/v1/discounts', {
      code: 'TWOPAGES',
      title: 'Two pages',
      type: 'percentage',
      value: '10',
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().data.id as string;
    await editIn(a, '/discounts', 'Discounts', 'Edit TWOPAGES');
    await editIn(b, '/discounts', 'Discounts', 'Edit TWOPAGES');
    await a.getByLabel('Title').fill('Title from A');
    await saveIn(a, 'Save discount');
    await closed(a);
    await b.getByLabel('Usage limit').fill('50');
    await saveIn(b, 'Save discount');
    await closed(b);
    let now = (await api.get(`/api/v1/discounts/${id}`)).json().data;
    expect([now.title, now.usage_limit]).toEqual(['Title from A', 50]);

    await editIn(b, '/discounts', 'Discounts', 'Edit TWOPAGES');
    await editIn(a, '/discounts', 'Discounts', 'Edit TWOPAGES');
    await a.getByLabel('Usage limit').fill('60');
    await saveIn(a, 'Save discount');
    await closed(a);
    await b.getByLabel('Usage limit').fill('70');
    await saveIn(b, 'Save discount');
    const alert = b.getByRole('alert').filter({ hasText: 'Someone else changed' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      'Someone else changed this discount since you opened it: usage limit.',
    );
    await photograph(b, 'concurrent-discount-412');
    now = (await api.get(`/api/v1/discounts/${id}`)).json().data;
    expect(now.usage_limit).toBe(60);
    await alert.getByRole('button', { name: 'Reload' }).click();
    expect(await b.getByLabel('Usage limit').inputValue()).toBe('60');
    expect(await b.getByLabel('Title').inputValue()).toBe('Title from A');
  });

  it('category: a position save keeps the other page’s description; the same field twice is refused', async () => {
    const res = await api.post('/api/v1/categories', { name: 'Hats' });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().data.id as string;
    await editIn(a, '/categories', 'Categories', 'Edit Hats');
    await editIn(b, '/categories', 'Categories', 'Edit Hats');
    await a.getByLabel('Description').fill('From A');
    await saveIn(a, 'Save category');
    await closed(a);
    await b.getByLabel('Position').fill('4');
    await saveIn(b, 'Save category');
    await closed(b);
    let now = (await api.get(`/api/v1/categories/${id}`)).json().data;
    expect([now.description, now.position]).toEqual(['From A', 4]);

    await editIn(b, '/categories', 'Categories', 'Edit Hats');
    await editIn(a, '/categories', 'Categories', 'Edit Hats');
    await a.getByLabel('Position').fill('5');
    await saveIn(a, 'Save category');
    await closed(a);
    await b.getByLabel('Position').fill('6');
    await saveIn(b, 'Save category');
    const alert = b.getByRole('alert').filter({ hasText: 'Someone else changed' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      'Someone else changed this category since you opened it: position.',
    );
    await photograph(b, 'concurrent-category-412');
    now = (await api.get(`/api/v1/categories/${id}`)).json().data;
    expect(now.position).toBe(5);
    await alert.getByRole('button', { name: 'Reload' }).click();
    expect(await b.getByLabel('Position').inputValue()).toBe('5');
    expect(await b.getByLabel('Description').inputValue()).toBe('From A');
  });
});
