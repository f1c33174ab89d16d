import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { setPricing } from '../helpers/order-factories.js';
import { freePort } from '../helpers/processes.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * Issue 30, item 5: the order page's history in Chromium. An order placed through an API key is
 * paid, edited, annotated, fulfilled and part refunded from the dashboard; the page's timeline shows
 * each change with its details, who made it and when, in the store's time zone (named).
 */
describe.skipIf(!hasChromium())('the order timeline in the dashboard', () => {
  const EMAIL = 'owner@timeline.test';
  const PASSWORD = 'correct horse battery staple';
  const ZONE = 'Asia/Tokyo';
  let app: TestApp;
  let api: Client;
  let base: string;
  let browser: LaunchedBrowser;
  let page: Page;
  let productId: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const store = await createStoreWithKey(app, { slug: `timeline-${port}` });
    const key = await app.services.stores.createApiKey(store.store.id, { name: 'Shop sync', scopes: 'all' });
    api = client(app, key.key);
    await app.services.stores.createAdminUser({
      email: EMAIL,
      password: PASSWORD,
      storeSlug: store.store.slug,
    });
    await setPricing(app, store.store.id, { shipping_flat_rate: 500, tax_rate_bps: 0 });
    await app.services.stores.updateSettings(store.store.id, { timezone: ZONE });
    productId = (await createProduct(api, { name: 'Enamel Mug', price: '12.50', inventory: 20 })).id;
    browser = await launchBrowser();
    page = browser.page;
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const dialog = () => page.getByRole('dialog');
  const entry = (type: string) => page.getByTestId('order-timeline').locator(`li[data-type="${type}"]`);

  it('shows every change with who made it and when, in the store’s time zone', async () => {
    await page.goto(`${base}/admin/`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    const res = await api.post('/api/v1/orders', {
      customer: { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper' },
      items: [{ product_id: productId, quantity: 2 }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json().data as { id: string; order_number: string; created_at: string };
    await page.goto(`${base}/admin/orders/${order.id}`);
    await page.getByRole('heading', { level: 1, name: `Order #${order.order_number}` }).waitFor();

    await page.getByRole('button', { name: 'Mark as paid' }).click();
    await dialog().getByRole('button', { name: 'Mark as paid' }).click();
    await entry('paid').waitFor();

    await page.getByRole('button', { name: 'Edit items' }).click();
    await dialog().getByLabel('Quantity of Enamel Mug').fill('3');
    await dialog().getByRole('button', { name: 'Save changes' }).click();
    await entry('items_edited').waitFor();

    await page.getByLabel('Internal notes').fill('Leave at the back door');
    await page.getByRole('button', { name: 'Save notes' }).click();
    await entry('notes_changed').waitFor();

    await page.getByRole('button', { name: 'Fulfil' }).click();
    await dialog().getByLabel('Carrier').fill('UPS');
    await dialog().getByLabel('Tracking number').fill('1Z999AA1');
    await dialog().getByRole('button', { name: 'Fulfil order' }).click();
    await entry('fulfilled').waitFor();

    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await dialog().getByLabel('Amount (USD)').fill('12.50');
    await dialog().getByLabel('Reason').fill('Chipped on arrival');
    await dialog().getByRole('button', { name: 'Refund', exact: true }).click();
    await entry('refunded').waitFor();

    const staff = `Staff ${EMAIL}`;
    const expected: [string, string[]][] = [
      ['created', ['Order placed: 30.00 USD', 'API key Shop sync']],
      ['paid', ['Paid 30.00 USD (manual)', staff]],
      [
        'items_edited',
        [
          'Items edited: total 30.00 USD → 42.50 USD',
          staff,
          '2 × Enamel Mug at $12.50',
          '3 × Enamel Mug at $12.50',
        ],
      ],
      ['notes_changed', ['Notes changed', staff, '“Leave at the back door”']],
      ['fulfilled', ['Fulfilled, tracking UPS 1Z999AA1', staff]],
      ['refunded', ['Refunded 12.50 USD: Chipped on arrival', staff]],
    ];
    const items = page.getByTestId('order-timeline').locator('li[data-type]');
    expect(
      await items.evaluateAll((lis) =>
        lis.map((li) => (li as unknown as { dataset: Record<string, string> }).dataset.type),
      ),
    ).toEqual(expected.map(([type]) => type));
    for (const [type, texts] of expected) {
      const text = await entry(type).textContent();
      for (const part of texts) expect(text, type).toContain(part);
    }
    expect(await page.locator('.timeline li', { hasText: 'Last changed' }).count()).toBe(0);

    // When: the recorded moment, written in the store's zone (named), not the browser's.
    await page.getByText(`Times in ${ZONE}.`).waitFor();
    const time = entry('refunded').locator('time');
    const at = (await time.getAttribute('datetime')) as string;
    const shown = await time.textContent();
    const render = (timeZone: string) =>
      page.evaluate(
        ([iso, zone]) =>
          new Date(iso as string).toLocaleString(undefined, {
            dateStyle: 'medium',
            timeStyle: 'short',
            timeZone: zone,
          }),
        [at, timeZone],
      );
    expect(shown).toBe(await render(ZONE));
    expect(shown).not.toBe(await render('UTC'));
    expect(Math.abs(Date.now() - Date.parse(at))).toBeLessThan(120_000);

    // The rest of the page says the store's time too, naming the zone ("Placed …", "paid …").
    const placed = (await page.getByText(/^Placed /).textContent()) as string;
    const inZone = await page.evaluate(
      ([iso, zone]) =>
        new Date(iso as string).toLocaleString(undefined, {
          year: 'numeric',
          month: 'short',
          day: 'numeric',
          hour: '2-digit',
          minute: '2-digit',
          timeZone: zone,
          timeZoneName: 'short',
        }),
      [order.created_at, ZONE],
    );
    expect(placed).toBe(`Placed ${inZone}`);
    expect(placed).toMatch(/GMT\+9/);

    await screenshot(page, 'order-timeline-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await entry('refunded').waitFor();
    const overflow = await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBe(0);
    await screenshot(page, 'order-timeline-390');
    expect(pageErrors).toEqual([]);
  });
});
