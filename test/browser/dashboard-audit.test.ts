import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { freePort } from '../helpers/processes.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * Activity, the audit log's page for owners (contract §14, issue 33 item 4), against a real server and
 * database: the writes just made in the dashboard and through an API key are listed newest first with
 * who made them and from where; filters by resource type, actor and days; "Load more" pages on with
 * the cursor until the log's end. Every photographed page passes axe-core.
 */
describe.skipIf(!hasChromium())('the activity page in Chromium', () => {
  const OWNER = 'owner@activity.test';
  const PASSWORD = 'correct horse battery staple';
  const UPDATES = 55;
  let app: TestApp;
  let base: string;
  let smtp: SmtpCatcher;
  let browser: LaunchedBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    smtp = await startSmtpCatcher();
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base, smtpUrl: smtp.url } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const store = await app.services.stores.createStore({ slug: `activity-${port}`, name: 'Activity Store' });
    await app.services.stores.createAdminUser({ email: OWNER, password: PASSWORD, storeSlug: store.slug });
    const key = await app.services.stores.createApiKey(store.id, { name: 'ERP sync', scopes: 'all' });
    const api = client(app, key.key);
    // More writes than one page of the log holds: "Load more" has something to load.
    const product = await createProduct(api, { name: 'Kettle', price: '30.00', inventory: 3 });
    for (let i = 0; i < UPDATES; i++) {
      const res = await api.patch(`/api/v1/products/${product.id}`, { description: `Edition ${i}` });
      expect(res.statusCode).toBe(200);
    }
    browser = await launchBrowser();
    page = browser.page;
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${base}/admin/`);
    await page.getByLabel('E-mail').fill(OWNER);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await heading('Overview').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await smtp?.close();
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name });
  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click();
  const rows = () => page.getByTestId('audit-log').locator('tbody tr');
  const actions = async () =>
    (await page.getByTestId('audit-log').locator('tbody td[data-label="Action"]').allTextContents()).map(
      (t) => t.trim(),
    );

  async function atBothWidths(name: string) {
    await screenshot(page, `33-${name}-1280`);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, `33-${name}-390`);
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  async function applyFilters() {
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('.is-refreshing').first().waitFor({ state: 'detached' });
  }

  it('lists the writes just made in the dashboard, newest first, with who and from where', async () => {
    await nav('Categories');
    await heading('Categories').waitFor();
    await page.getByRole('button', { name: 'New category' }).click();
    await page.getByRole('dialog').getByLabel('Name', { exact: true }).fill('Kettles');
    await page.getByRole('dialog').getByLabel('Name', { exact: true }).press('Enter');
    await page.getByRole('status').filter({ hasText: 'Kettles was created.' }).first().waitFor();

    await nav('Settings');
    await page
      .getByRole('navigation', { name: 'Settings sections' })
      .getByRole('link', { name: 'Staff' })
      .click();
    await heading('Staff').waitFor();
    await page.getByRole('button', { name: 'Invite staff' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite staff' });
    await dialog.getByLabel('E-mail').fill('grace@activity.test');
    await dialog.getByRole('checkbox', { name: /^View orders/ }).check();
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('status').filter({ hasText: 'An invitation was sent' }).waitFor();

    await nav('Activity');
    await heading('Activity').waitFor();
    await rows().first().waitFor();
    const first = rows().nth(0);
    expect(await first.locator('td[data-label="Action"]').textContent()).toBe('staff.invite');
    expect(await first.locator('td[data-label="Who"]').textContent()).toContain(OWNER);
    expect(await first.locator('td[data-label="Address"]').textContent()).toBe('127.0.0.1');
    const second = rows().nth(1);
    expect(await second.locator('td[data-label="Action"]').textContent()).toBe('category.create');
    const third = rows().nth(2);
    expect(await third.locator('td[data-label="Action"]').textContent()).toBe('product.update');
    expect(await third.locator('td[data-label="Who"]').textContent()).toContain('API key');
    expect(await rows().count()).toBe(50);
    await atBothWidths('activity');
  });

  it('loads more with the cursor until the log ends', async () => {
    await page.getByRole('button', { name: 'Load more' }).click();
    // 55 updates, the product's creation, the category and the invitation.
    await expect.poll(() => rows().count()).toBe(UPDATES + 3);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    const all = await actions();
    expect(all.at(-1)).toBe('product.create');
    expect(all.filter((a) => a === 'product.update')).toHaveLength(UPDATES);
  });

  it('filters by resource type, by actor and by days', async () => {
    await page.getByLabel('Resource type').fill('category');
    await applyFilters();
    expect(await actions()).toEqual(['category.create']);
    await atBothWidths('activity-filtered');

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Who').selectOption({ label: 'API key ERP sync' });
    await applyFilters();
    const byKey = await actions();
    expect(byKey).toHaveLength(50);
    expect(new Set(byKey)).toEqual(new Set(['product.update']));

    // From tomorrow on (in the store's zone, UTC): nothing yet.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('From').fill(tomorrow);
    await applyFilters();
    await page.getByText('Nothing matches these filters').waitFor();
    const today = new Date().toISOString().slice(0, 10);
    await page.getByLabel('From').fill(today);
    await page.getByLabel('To').fill(today);
    await applyFilters();
    await expect.poll(() => rows().count()).toBe(50);
    expect(pageErrors).toEqual([]);
  });
});
