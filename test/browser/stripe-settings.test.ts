import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type FakeStripe, startFakeStripe, stripeKeys } from '../helpers/fake-stripe.js';
import { freePort } from '../helpers/processes.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * The dashboard's Settings → Stripe card in Chromium against a real server on a port: the merchant
 * sees the webhook URL to give Stripe, connects with the keys, sees the last four characters of the
 * secret key, and disconnects; each step is checked through the API.
 */
describe.skipIf(!hasChromium())('dashboard: connecting Stripe in settings', () => {
  const EMAIL = 'owner@stripe.test';
  const PASSWORD = 'correct horse battery staple';
  let app: TestApp;
  let api: Client;
  let base: string;
  let slug: string;
  let stripe: FakeStripe;
  let browser: LaunchedBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    stripe = await startFakeStripe();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({
      config: { ...UNLIMITED, publicUrl: base, stripe: { apiBase: stripe.url, timeoutMs: 2000 } },
    });
    await app.server.listen({ port, host: '127.0.0.1' });
    const store = await createStoreWithKey(app, { slug: `stripe-${port}` });
    slug = store.store.slug;
    api = client(app, store.key);
    await app.services.stores.createAdminUser({ email: EMAIL, password: PASSWORD, storeSlug: slug });
    browser = await launchBrowser();
    page = browser.page;
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await stripe?.close();
  });

  it('connects Stripe with its keys, shows the webhook URL and the last four, and disconnects', async () => {
    await page.goto(`${base}/admin/`);
    await page.getByRole('heading', { name: 'Sign in to your store' }).waitFor();
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Settings', exact: true })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();

    const card = page.getByTestId('stripe-settings');
    const url = `${base}/api/payments/stripe/${slug}/webhook`;
    await card.getByTestId('stripe-webhook-url').filter({ hasText: url }).waitFor();

    // A key of the wrong kind is refused, naming the field.
    const keys = stripeKeys();
    const form = page.getByRole('form', { name: 'Connect Stripe' });
    await form.getByLabel('Secret key').fill(keys.publishable_key);
    await form.getByLabel('Publishable key').fill(keys.publishable_key);
    await form.getByLabel('Webhook signing secret').fill(keys.webhook_secret);
    await form.getByRole('button', { name: 'Connect Stripe' }).click();
    await card.getByText('must be a Stripe secret key').first().waitFor();
    expect((await api.get('/api/v1/payments/stripe')).json().data.enabled).toBe(false);

    await form.getByLabel('Secret key').fill(keys.secret_key);
    await form.getByRole('button', { name: 'Connect Stripe' }).click();
    await page.getByRole('status').filter({ hasText: 'Stripe is connected' }).first().waitFor();
    await card
      .getByTestId('stripe-last4')
      .filter({ hasText: keys.secret_key.slice(-4) })
      .waitFor();
    expect(await card.textContent()).not.toContain(keys.secret_key);
    await screenshot(page, 'settings-stripe-connected');
    expect((await api.get('/api/v1/payments/stripe')).json().data).toEqual({
      enabled: true,
      publishable_key: keys.publishable_key,
      secret_key_last4: keys.secret_key.slice(-4),
      webhook_url: url,
    });
    const config = (await api.get(`/api/storefront/${slug}/config`)).json().data;
    expect(config.payments).toEqual({
      methods: ['manual', 'test_card', 'stripe'],
      stripePublishableKey: keys.publishable_key,
    });

    await card.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('status').filter({ hasText: 'Stripe was disconnected' }).first().waitFor();
    await page.getByRole('form', { name: 'Connect Stripe' }).waitFor();
    expect((await api.get('/api/v1/payments/stripe')).json().data.enabled).toBe(false);
    expect(pageErrors).toEqual([]);
  });
});
