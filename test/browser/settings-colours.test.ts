import type { Page } from 'playwright-core';

/** The page's own globals, typed here only (the test project has no DOM library). */
declare const document: {
  documentElement: unknown;
  getElementById(id: string): { value: string } | null;
};
declare function getComputedStyle(element: unknown): {
  backgroundColor: string;
  color: string;
  getPropertyValue(name: string): string;
};

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { freePort } from '../helpers/processes.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

const NAMES = ['primary', 'secondary', 'accent', 'background', 'text'] as const;

/** `#rrggbb` → `rgb(r, g, b)`, as getComputedStyle reports a colour. */
function rgb(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
}

/**
 * Issue 30 items 2 and 9 in Chromium, on a store that has set no colours and no app config: Settings
 * previews the colours the shop draws, a save that touches no colour leaves the shop as it was, a
 * colour set can be put back to the default; the app-config field shows what is saved, with the
 * example beside it as help.
 */
describe.skipIf(!hasChromium())('dashboard: store colours and the app config in settings', () => {
  const EMAIL = 'owner@colours.test';
  const PASSWORD = 'correct horse battery staple';
  let app: TestApp;
  let api: Client;
  let base: string;
  let slug: string;
  let storeId: string;
  let browser: LaunchedBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  const storeColors = async () => (await app.services.stores.getStore(storeId)).colors;
  const notice = (text: string) => page.getByRole('status').filter({ hasText: text }).first().waitFor();
  const openSettings = async () => {
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Settings', exact: true })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
  };
  const openOverview = async () => {
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Overview', exact: true })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  };

  /** The colours the shop's home page draws, as Chromium computes its CSS variables. */
  async function shopColors(): Promise<Record<string, string>> {
    const shop = await browser.context.newPage();
    try {
      // The shop's pages may be kept 30 s by the browser: ask past that cache, as a reload does.
      await shop.setExtraHTTPHeaders({ 'cache-control': 'no-cache' });
      await shop.goto(`${base}/shop/${slug}/`);
      return await shop.evaluate(
        (names) => {
          const style = getComputedStyle(document.documentElement);
          return Object.fromEntries(names.map((n) => [n, style.getPropertyValue(`--shop-${n}`).trim()]));
        },
        NAMES as unknown as string[],
      );
    } finally {
      await shop.close();
    }
  }

  /** The preview's computed colours, drawn as the shop draws them (header primary, buttons accent). */
  async function previewColors() {
    const preview = page.getByRole('img', { name: 'Preview of the storefront colours' });
    const bg = (selector: string) =>
      preview.locator(selector).evaluate((el) => getComputedStyle(el).backgroundColor);
    return {
      background: await preview.evaluate((el) => getComputedStyle(el).backgroundColor),
      text: await preview.evaluate((el) => getComputedStyle(el).color),
      primary: await bg('.color-preview-bar'),
      accent: await bg('.color-preview-button'),
      secondary: await bg('.color-preview-tag'),
    };
  }

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const store = await createStoreWithKey(app, { slug: `colours-${port}` });
    slug = store.store.slug;
    storeId = store.store.id;
    api = client(app, store.key);
    await app.services.stores.createAdminUser({ email: EMAIL, password: PASSWORD, storeSlug: slug });
    browser = await launchBrowser();
    page = browser.page;
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${base}/admin/`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('previews the shop’s own defaults, and a save that touches no colour leaves the shop as it was', async () => {
    expect(await storeColors()).toEqual({});
    const before = await shopColors();
    expect(Object.values(before).every((v) => /^#[0-9a-f]{6}$/i.test(v))).toBe(true);

    await openSettings();
    for (const name of NAMES) {
      const field = page.getByLabel(name.charAt(0).toUpperCase() + name.slice(1), { exact: true });
      expect(await field.inputValue()).toBe('');
      expect(await field.getAttribute('placeholder')).toBe(`default (${before[name]})`);
    }
    const shown = await previewColors();
    for (const name of NAMES) expect(shown[name], name).toBe(rgb(before[name] as string));
    await screenshot(page, 'settings-colours-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'settings-colours-390');
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByLabel('Tax rate (%)').fill('7.5');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await notice('The settings were saved.');
    expect((await app.services.stores.getStore(storeId)).tax_rate_bps).toBe(750);
    expect(await storeColors()).toEqual({});
    expect(await shopColors()).toEqual(before);
  });

  it('saves a colour the merchant sets, and puts it back to the default on request', async () => {
    const before = await shopColors();
    await page.getByLabel('Primary', { exact: true }).fill('#112233');
    expect((await previewColors()).primary).toBe(rgb('#112233'));
    await screenshot(page, 'settings-colours-set');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await notice('The settings were saved.');
    expect(await storeColors()).toEqual({ primary: '#112233' });
    expect(await shopColors()).toEqual({ ...before, primary: '#112233' });

    await page.getByRole('button', { name: 'Use default primary colour' }).click();
    expect(await page.getByLabel('Primary', { exact: true }).inputValue()).toBe('');
    expect((await previewColors()).primary).toBe(rgb(before.primary as string));
    await page.getByRole('button', { name: 'Save settings' }).click();
    await notice('The settings were saved.');
    expect(await storeColors()).toEqual({});
    expect(await shopColors()).toEqual(before);

    // Something that is not a colour is refused before it is sent, naming the field.
    await page.getByLabel('Accent', { exact: true }).fill('blue');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText(/The accent colour must be a hex colour/).waitFor();
    await page.getByRole('button', { name: 'Use default accent colour' }).click();
    expect(await storeColors()).toEqual({});
  });

  it('shows the saved app config (an empty object when none), with the example beside it as help', async () => {
    const editor = page.getByLabel('App config JSON');
    expect(JSON.parse(await editor.inputValue())).toEqual({});
    await page.getByText('Nothing is saved yet: your apps get an empty object').waitFor();
    const example = page.getByRole('complementary', { name: 'Example' });
    expect(await example.textContent()).toContain('"wishlist": true');
    // Saved elsewhere (an app's key) after this page signed in: Settings shows it, not the sign-in copy.
    const config = { theme: { mode: 'dark' }, home: { banners: ['spring'] } };
    const put = await api.put(`/api/storefront/${slug}/app-config`, config);
    expect(put.statusCode, put.body).toBe(200);
    await openOverview();
    await openSettings();
    await page.waitForFunction(() => document.getElementById('app-config')?.value.includes('spring'));
    expect(JSON.parse(await editor.inputValue())).toEqual(config);
    await page.getByText('Below is what is saved.').waitFor();
    await screenshot(page, 'settings-app-config-saved');

    await editor.fill('{"theme": {"mode": "light"}}');
    await page.getByRole('button', { name: 'Revert' }).click();
    expect(JSON.parse(await editor.inputValue())).toEqual(config);
    expect(pageErrors).toEqual([]);
  });
});
