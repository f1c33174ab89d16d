import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { freePort } from '../helpers/processes.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * Issue 30, item 10: after a successful test send, the webhook page says the test worked, and that
 * no event has been delivered yet (a test is not a delivery), instead of "Last success: never".
 */
describe.skipIf(!hasChromium())('a webhook’s last test in the dashboard', () => {
  const EMAIL = 'owner@hooks.test';
  const PASSWORD = 'correct horse battery staple';
  let app: TestApp;
  let api: Client;
  let base: string;
  let browser: LaunchedBrowser;
  let page: Page;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base, allowPrivateUrls: true } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const store = await createStoreWithKey(app, { slug: `hooks-${port}` });
    api = client(app, store.key);
    await app.services.stores.createAdminUser({
      email: EMAIL,
      password: PASSWORD,
      storeSlug: store.store.slug,
    });
    receiver = await startWebhookReceiver();
    browser = await launchBrowser();
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await app?.close();
  });

  it('shows the test’s outcome beside “no delivery yet”', async () => {
    const res = await api.post('/api/v1/webhooks', {
      url: `${receiver.url}/hook`,
      events: ['order.paid'],
      description: 'Back office',
    });
    expect(res.statusCode, res.body).toBe(201);
    const hook = res.json().data as { id: string };

    await page.goto(`${base}/admin/`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.goto(`${base}/admin/webhooks/${hook.id}`);
    await page.getByRole('heading', { level: 1, name: 'Back office' }).waitFor();
    expect(await page.getByTestId('last-test').textContent()).toBe('Last test: none');

    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByTestId('test-result').getByText('Test delivered: HTTP 200').waitFor();
    await page.getByTestId('last-test').getByText('Last test: succeeded (HTTP 200)').waitFor();
    expect(await page.getByTestId('last-delivery').textContent()).toBe(
      'Last successful delivery: none yet (tests are not counted)',
    );
    expect(await page.getByText('Last success: never').count()).toBe(0);
    await screenshot(page, 'webhook-last-test-1280');

    await page.goto(`${base}/admin/webhooks`);
    await page.getByRole('cell', { name: /Test succeeded/ }).waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/admin/webhooks/${hook.id}`);
    await page.getByTestId('last-test').getByText('succeeded').waitFor();
    const overflow = await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBe(0);
    await screenshot(page, 'webhook-last-test-390');
  });
});
