import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { freePort } from '../helpers/processes.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * The dashboard's forms as a merchant meets them (issue 30, items 7, 8 and 11): errors in words
 * beside their field, discount dates in the store's time zone that survive a save untouched, focus
 * back on the opener after Escape, and a phone's menu that gets out of the way. The browser runs in
 * Los Angeles, the store in Berlin.
 */
describe.skipIf(!hasChromium())('dashboard forms in Chromium', () => {
  const EMAIL = 'owner@forms.test';
  const PASSWORD = 'correct horse battery staple';
  const STORE_ZONE = 'Europe/Berlin';
  let app: TestApp;
  let api: Client;
  let base: string;
  let browser: LaunchedBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const store = await createStoreWithKey(app, { slug: `forms-${port}` });
    api = client(app, store.key);
    await app.services.stores.createAdminUser({
      email: EMAIL,
      password: PASSWORD,
      storeSlug: store.store.slug,
    });
    await app.services.stores.updateSettings(store.store.id, { timezone: STORE_ZONE });
    browser = await launchBrowser(undefined, { timezoneId: 'America/Los_Angeles' });
    page = browser.page;
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${base}/admin/`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await heading('Overview').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name });
  const nav = async (name: string) => {
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name, exact: true })
      .click();
    await heading(name).waitFor();
  };
  // Page code as text: this file is type-checked without the DOM's types.
  const focusedText = () => page.evaluate<string>("document.activeElement?.outerHTML.slice(0, 200) ?? ''");
  const focusedName = () =>
    page.evaluate<string>(
      "document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? ''",
    );

  /** The error text screen readers hear for a control: what its aria-describedby points at. */
  async function errorOf(control: Locator): Promise<string> {
    expect(await control.getAttribute('aria-invalid')).toBe('true');
    const ids = (await control.getAttribute('aria-describedby')) ?? '';
    const texts = await Promise.all(ids.split(' ').map((id) => page.locator(`[id="${id}"]`).textContent()));
    return texts.join(' ');
  }

  async function atBothWidths(name: string) {
    await screenshot(page, `${name}-1280`);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, `${name}-390`);
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it('shows each field’s error in words beside it, never schema text', async () => {
    await nav('Products');
    await page.getByRole('button', { name: 'New product' }).click();
    await heading('New product').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Enamel Mug');
    await page.getByLabel('Price (USD)', { exact: true }).fill('12,50');
    await page.getByLabel('Compare-at price (USD)', { exact: true }).fill('ten');
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByRole('alert').waitFor();

    const price = page.getByLabel('Price (USD)', { exact: true });
    expect(await errorOf(price)).toBe('must be an amount such as 19.99');
    expect(await errorOf(page.getByLabel('Compare-at price (USD)', { exact: true }))).toBe(
      'must be an amount such as 19.99',
    );
    const text = await page.getByRole('main').textContent();
    expect(text).not.toMatch(/must match|pattern|\^\\d|anyOf/);
    await atBothWidths('30-product-field-errors');
  });

  it('names the colour that is wrong on the settings page', async () => {
    await nav('Settings');
    const primary = page.getByLabel('Primary', { exact: true });
    await primary.fill('blue');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('alert').first().waitFor();
    // The page's own check, in the API's words (must be a colour such as #1f2937).
    expect(await errorOf(primary)).toMatch(
      /^must be a colour such as #[0-9a-f]{6}, or empty for the default$/,
    );
  });

  it('shows and edits discount dates in the store’s time zone, and a save leaves them untouched', async () => {
    const created = await api.post('/api/v1/discounts', {
      code: 'WINTER',
      type: 'percentage',
      value: '10',
      starts_at: '2026-12-01T09:30:45.123Z',
      ends_at: '2026-12-24T22:59:59.999Z',
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as string;

    await nav('Discounts');
    const row = page.getByRole('row').filter({ hasText: 'WINTER' });
    // 22:59 UTC is 23:59 in Berlin (CET), 14:59 in Los Angeles.
    expect(await row.textContent()).toMatch(/Dec 24, 2026, 11:59 PM GMT\+1/);
    await page.getByRole('button', { name: 'Edit WINTER' }).click();
    const dialog = page.getByRole('dialog');
    const starts = dialog.getByLabel('Starts');
    expect(await starts.inputValue()).toBe('2026-12-01T10:30');
    expect(await dialog.getByLabel('Ends').inputValue()).toBe('2026-12-24T23:59');
    expect(await dialog.textContent()).toContain(`Times in ${STORE_ZONE}`);
    await atBothWidths('31-discount-form');

    await dialog.getByRole('button', { name: 'Save discount' }).click();
    await dialog.waitFor({ state: 'detached' });
    const saved = (await api.get(`/api/v1/discounts/${id}`)).json().data;
    expect(saved).toMatchObject({
      starts_at: '2026-12-01T09:30:45.123Z',
      ends_at: '2026-12-24T22:59:59.999Z',
    });

    // A date the merchant types is the store's wall clock: 18:00 in Berlin is 17:00 UTC.
    await page.getByRole('button', { name: 'Edit WINTER' }).click();
    await page.getByRole('dialog').getByLabel('Ends').fill('2026-12-31T18:00');
    await page.getByRole('dialog').getByRole('button', { name: 'Save discount' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    const edited = (await api.get(`/api/v1/discounts/${id}`)).json().data;
    expect(edited).toMatchObject({
      starts_at: '2026-12-01T09:30:45.123Z',
      ends_at: '2026-12-31T17:00:00.000Z',
    });
  });

  it('returns the focus to the button that opened a dialog when Escape closes it', async () => {
    await nav('Discounts');
    const edit = page.getByRole('button', { name: 'Edit WINTER' });
    await edit.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await focusedName()).toBe('Edit WINTER');

    // The confirmation before a delete: Escape is "no", and the focus is back on Delete.
    const remove = page.getByRole('button', { name: 'Delete WINTER' });
    await remove.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('confirm-dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('confirm-dialog').waitFor({ state: 'hidden' });
    expect(await focusedName()).toBe('Delete WINTER');
    expect((await api.get('/api/v1/discounts')).json().data).toHaveLength(1);
  });

  it('at 390 px closes the menu on Escape and never leaves it over the focused field', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const menu = page.getByRole('button', { name: 'Menu' });
    const sidebar = page.getByRole('navigation', { name: 'Dashboard' });
    await menu.click();
    await sidebar.waitFor();
    await page.keyboard.press('Escape');
    await sidebar.waitFor({ state: 'hidden' });
    expect(await focusedName()).toMatch(/Menu$/);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');

    // Open again and Tab through it and on into the page: once the focus is on a field, the menu
    // is gone and the field is what is under its own centre.
    await page.keyboard.press('Enter');
    await sidebar.waitFor();
    let inPage = false;
    for (let i = 0; i < 30 && !inPage; i++) {
      await page.keyboard.press('Tab');
      inPage = await page.evaluate<boolean>(
        "document.querySelector('main').contains(document.activeElement)",
      );
    }
    expect(inPage).toBe(true);
    await sidebar.waitFor({ state: 'hidden' });
    const uncovered = await page.evaluate<boolean>(`(() => {
      const field = document.activeElement;
      const box = field.getBoundingClientRect();
      const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      return top !== null && (field === top || field.contains(top));
    })()`);
    expect(uncovered, await focusedText()).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(pageErrors).toEqual([]);
  });
});
