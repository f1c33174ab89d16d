import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { stripeKeys } from '../helpers/fake-stripe.js';
import { freePort } from '../helpers/processes.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * Two tabs of one browser on the forms that save a whole document with PUT (issue 30, item 1): the
 * Stripe keys and the mobile app config. Each form keeps the ETag of what it loaded and sends it
 * with If-Match; the later save is refused (412) with a notice naming what changed and a Reload
 * button, and the earlier save stays. One browser, so that the tabs share its HTTP cache, as a
 * merchant's tabs do (the app config is also served publicly, cacheable for 30 s).
 */
describe.skipIf(!hasChromium())('two tabs saving the Stripe keys and the app config', () => {
  const EMAIL = 'owner@documents.test';
  const PASSWORD = 'correct horse battery staple';
  let app: TestApp;
  let api: Client;
  let base: string;
  let slug: string;
  let browser: LaunchedBrowser;
  let a: Page;
  let b: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const store = await createStoreWithKey(app, { slug: `two-tabs-${port}` });
    slug = store.store.slug;
    api = client(app, store.key);
    await app.services.stores.createAdminUser({ email: EMAIL, password: PASSWORD, storeSlug: slug });
    browser = await launchBrowser();
    a = browser.page;
    await a.goto(`${base}/admin/`);
    await a.getByRole('heading', { name: 'Sign in to your store' }).waitFor();
    await a.getByLabel('E-mail').fill(EMAIL);
    await a.getByLabel('Password').fill(PASSWORD);
    await a.getByLabel('Password').press('Enter');
    await a.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    b = await browser.context.newPage();
    b.setDefaultTimeout(15_000);
    for (const page of [a, b]) page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await app?.close();
  });

  const openSettings = async (page: Page) => {
    await page.goto(`${base}/admin/settings`);
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await page.waitForLoadState('networkidle');
  };
  const staleAlert = (page: Page) => page.getByRole('alert').filter({ hasText: 'Someone else changed' });

  /**
   * The page with the notice at 1280 and 390 px, each photographed whole and audited by axe-core
   * (`screenshot` fails on a serious or critical violation), from the top: a full-page picture of a
   * scrolled page draws the sticky bar in its middle.
   */
  async function photograph(page: Page, name: string) {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.evaluate('window.scrollTo(0, 0)');
      await screenshot(page, `${name}-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  const connectWith = async (page: Page, keys: ReturnType<typeof stripeKeys>) => {
    const form = page.getByRole('form', { name: 'Connect Stripe' });
    await form.getByLabel('Secret key').fill(keys.secret_key);
    await form.getByLabel('Publishable key').fill(keys.publishable_key);
    await form.getByLabel('Webhook signing secret').fill(keys.webhook_secret);
    await form.getByRole('button', { name: 'Connect Stripe' }).click();
  };
  const stripeNow = async () => (await api.get('/api/v1/payments/stripe')).json().data;

  it('Stripe: the later tab’s keys are refused, the earlier stay; Reload shows them', async () => {
    await openSettings(a);
    await openSettings(b);
    const first = stripeKeys();
    await connectWith(a, first);
    await a.getByRole('status').filter({ hasText: 'Stripe is connected' }).first().waitFor();

    await connectWith(b, stripeKeys());
    const alert = staleAlert(b);
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      'Someone else changed this Stripe connection since you opened it: status, publishable key, secret key.',
    );
    expect(await b.getByText('Stripe is connected').count()).toBe(0);
    const now = await stripeNow();
    expect([now.enabled, now.publishable_key, now.secret_key_last4]).toEqual([
      true,
      first.publishable_key,
      first.secret_key.slice(-4),
    ]);
    await photograph(b, 'concurrent-stripe-412');

    await alert.getByRole('button', { name: 'Reload' }).click();
    const card = b.getByTestId('stripe-settings');
    await card.getByText(first.publishable_key).waitFor();
    expect(await card.getByTestId('stripe-last4').textContent()).toBe(first.secret_key.slice(-4));
    expect(await staleAlert(b).count()).toBe(0);

    // Reloaded, the tab holds the latest version: replacing the keys now is saved.
    const second = stripeKeys();
    await card.getByRole('button', { name: 'Replace keys' }).click();
    await connectWith(b, second);
    await b.getByRole('status').filter({ hasText: 'Stripe is connected' }).first().waitFor();
    expect((await stripeNow()).publishable_key).toBe(second.publishable_key);

    // The first tab still shows the keys it saved: replacing them with its old version is refused.
    await a.getByTestId('stripe-settings').getByRole('button', { name: 'Replace keys' }).click();
    await connectWith(a, stripeKeys());
    await staleAlert(a).waitFor();
    expect(await staleAlert(a).textContent()).toContain('since you opened it: publishable key, secret key.');
    expect((await stripeNow()).publishable_key).toBe(second.publishable_key);
  });

  const editor = (page: Page) => page.getByLabel('App config JSON');
  const saveConfig = async (page: Page, json: unknown) => {
    await editor(page).fill(JSON.stringify(json));
    await page.getByRole('button', { name: 'Save app config' }).click();
  };
  const configNow = async () => (await api.get(`/api/storefront/${slug}/app-config`)).json().data;

  it('app config: the later tab’s document is refused, the earlier stays; Reload shows it', async () => {
    const before = { home: { banners: ['winter'] } };
    expect((await api.put(`/api/storefront/${slug}/app-config`, before)).statusCode).toBe(200);
    await openSettings(a);
    await openSettings(b);
    expect(JSON.parse(await editor(b).inputValue())).toEqual(before);

    const fromA = { home: { banners: ['spring'] }, theme: { mode: 'dark' } };
    await saveConfig(a, fromA);
    await a.getByText('The app config was saved.').waitFor();

    await saveConfig(b, { home: { banners: ['summer'] } });
    const alert = staleAlert(b);
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      'Someone else changed this app config since you opened it: home, theme.',
    );
    expect(await b.getByText('The app config was saved.').count()).toBe(0);
    expect(await configNow()).toEqual(fromA);
    await photograph(b, 'concurrent-app-config-412');

    await alert.getByRole('button', { name: 'Reload' }).click();
    expect(JSON.parse(await editor(b).inputValue())).toEqual(fromA);
    expect(await staleAlert(b).count()).toBe(0);
    const fromB = { ...fromA, features: { wishlist: true } };
    await saveConfig(b, fromB);
    await b.getByText('The app config was saved.').waitFor();
    expect(await configNow()).toEqual(fromB);

    // Opened again in the first tab (the storefront answer may be in the shared cache): the latest.
    await openSettings(a);
    await a.waitForFunction("document.getElementById('app-config')?.value.includes('wishlist')");
    expect(JSON.parse(await editor(a).inputValue())).toEqual(fromB);
  });
});
