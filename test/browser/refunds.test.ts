import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { setPricing } from '../helpers/order-factories.js';
import { freePort } from '../helpers/processes.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * The order page's Refund action in Debian's Chromium against a real server and database (contract
 * §9): the refundable amount is shown, part of a paid order is refunded with a reason and one unit
 * put back in stock, and the effect is checked through the API; at 1280 and 390 px.
 */
describe.skipIf(!hasChromium())('refunds in the dashboard', () => {
  const EMAIL = 'owner@refunds.test';
  const PASSWORD = 'correct horse battery staple';
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
    const store = await createStoreWithKey(app, { slug: `refunds-${port}` });
    api = client(app, store.key);
    await app.services.stores.createAdminUser({
      email: EMAIL,
      password: PASSWORD,
      storeSlug: store.store.slug,
    });
    await setPricing(app, store.store.id, { shipping_flat_rate: 500, tax_rate_bps: 0 });
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
  const stock = async () => (await api.get(`/api/v1/inventory/${productId}`)).json().data.inventory as number;

  async function paidOrder() {
    const res = await api.post('/api/v1/orders', {
      customer: { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper' },
      items: [{ product_id: productId, quantity: 2 }],
      mark_paid: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { id: string; order_number: string; line_items: { id: string }[] };
  }

  it('signs in', async () => {
    await page.goto(`${base}/admin/`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });

  it('refunds part of a paid order with a reason and one unit back in stock', async () => {
    // 2 × 12.50 + 5.00 shipping = 30.00 paid.
    const order = await paidOrder();
    const before = await stock();
    await page.goto(`${base}/admin/orders/${order.id}`);
    await page.getByRole('heading', { level: 1, name: `Order #${order.order_number}` }).waitFor();
    await page.getByText('No refunds.').waitFor();
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    expect(await dialog().getByTestId('refundable').textContent()).toContain(
      'Refundable: $30.00 of $30.00 paid',
    );
    expect(await dialog().getByLabel('Amount (USD)').inputValue()).toBe('30.00');
    await dialog().getByLabel('Amount (USD)').fill('12.50');
    await dialog().getByLabel('Reason').fill('Chipped on arrival');
    await dialog().getByLabel('Enamel Mug').fill('1');
    await screenshot(page, 'refund-dialog');
    await dialog().getByRole('button', { name: 'Refund', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Refunded $12.50.' }).first().waitFor();

    const saved = (await api.get(`/api/v1/orders/${order.id}`)).json().data;
    expect(saved).toMatchObject({ payment_status: 'partially_refunded', amount_refunded: 12.5 });
    const refunds = (await api.get(`/api/v1/orders/${order.id}/refunds`)).json().data;
    expect(refunds).toMatchObject([
      {
        amount: 12.5,
        reason: 'Chipped on arrival',
        status: 'succeeded',
        restocked: [{ line_item_id: order.line_items[0]?.id, quantity: 1 }],
      },
    ]);
    expect(await stock()).toBe(before + 1);

    // The page shows it: the refund in the list, the amount in the totals, what is left.
    await page.getByTestId('refund').getByText('Chipped on arrival').waitFor();
    expect(await page.getByTestId('order-refunded').textContent()).toBe('−$12.50');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    expect(await dialog().getByTestId('refundable').textContent()).toContain('Refundable: $17.50');
    expect(await dialog().getByLabel('Enamel Mug').isDisabled()).toBe(false);
    await dialog().getByLabel('Amount (USD)').fill('20.00');
    await dialog().getByRole('button', { name: 'Refund', exact: true }).click();
    await dialog().getByRole('alert').filter({ hasText: 'at most 17.50' }).waitFor();
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    expect((await api.get(`/api/v1/orders/${order.id}`)).json().data.amount_refunded).toBe(12.5);
    await screenshot(page, 'refund-order-1280');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByTestId('refund').waitFor();
    const overflow = await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'refund-order-390');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await dialog().getByLabel('Amount (USD)').waitFor();
    await screenshot(page, 'refund-dialog-390');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('shows net revenue (revenue − refunds) on the overview', async () => {
    await page.goto(`${base}/admin/`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const kpi = (label: string) =>
      page.locator('.kpi').filter({ has: page.locator('.kpi-label', { hasText: new RegExp(`^${label}$`) }) });
    await kpi('Net revenue').waitFor();
    expect(await kpi('Revenue').locator('.kpi-value').textContent()).toBe('$30.00');
    expect(await kpi('Net revenue').locator('.kpi-value').textContent()).toBe('$17.50');
    await screenshot(page, 'refund-overview-1280');
  });

  it('offers no Refund on an unpaid order, and every form field has a label', async () => {
    const res = await api.post('/api/v1/orders', {
      customer: { email: 'ada@example.com' },
      items: [{ product_id: productId, quantity: 1 }],
    });
    const order = res.json().data;
    await page.goto(`${base}/admin/orders/${order.id}`);
    await page.getByRole('heading', { level: 1, name: `Order #${order.order_number}` }).waitFor();
    await page.getByText('No refunds.').waitFor();
    expect(await page.getByRole('button', { name: 'Refund', exact: true }).count()).toBe(0);
    const unlabelled = await page.evaluate(`[...document.querySelectorAll('input, select, textarea')]
      .filter((el) => el.type !== 'hidden' && !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
      .length`);
    expect(unlabelled).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
