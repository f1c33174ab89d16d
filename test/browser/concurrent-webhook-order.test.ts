import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { freePort } from '../helpers/processes.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * Two dashboard pages on the same webhook and the same order (issue 30, item 1): the webhook's
 * settings form, its enable switch and the order's notes send If-Match with only the fields changed.
 * A save of another field keeps the other page's change; a save of the same field is refused with a
 * notice naming it and a Reload button, and the earlier save stays (checked through the API).
 */
describe.skipIf(!hasChromium())('two pages editing a webhook and an order', () => {
  const EMAIL = 'owner@two-pages-more.test';
  const PASSWORD = 'correct horse battery staple';
  let app: TestApp;
  let api: Client;
  let base: string;
  let browser: LaunchedBrowser;
  let a: Page;
  let b: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base, allowPrivateUrls: true } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const store = await createStoreWithKey(app, { slug: `two-pages-more-${port}` });
    api = client(app, store.key);
    await app.services.stores.createAdminUser({
      email: EMAIL,
      password: PASSWORD,
      storeSlug: store.store.slug,
    });
    browser = await launchBrowser();
    a = browser.page;
    await a.goto(`${base}/admin/`);
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

  const open = async (page: Page, path: string, heading: string) => {
    await page.goto(`${base}/admin${path}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    await page.waitForLoadState('networkidle');
  };
  const staleAlert = (page: Page) => page.getByRole('alert').filter({ hasText: 'Someone else changed' });

  /** The page with the notice at 1280 and 390 px, from the top, audited by axe-core (`screenshot`). */
  async function photograph(page: Page, name: string) {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.evaluate('window.scrollTo(0, 0)');
      await screenshot(page, `${name}-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  const hookUrl = (path: string) => `http://127.0.0.1:9/${path}`;

  it('webhook: another field’s save keeps the other page’s; the same field is refused, Reload shows it', async () => {
    const res = await api.post('/api/v1/webhooks', {
      url: hookUrl('first'),
      events: ['order.paid'],
      description: 'Back office',
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = (res.json().data as { id: string }).id;
    const hookNow = async () => (await api.get(`/api/v1/webhooks/${id}`)).json().data;
    const form = (page: Page) => page.getByRole('form', { name: 'Webhook settings' });
    await open(a, `/webhooks/${id}`, 'Back office');
    await open(b, `/webhooks/${id}`, 'Back office');

    await form(a).getByLabel('Description').fill('Order sync');
    await form(a).getByRole('button', { name: 'Save' }).click();
    await a.getByText('The webhook was saved.').waitFor();

    // The second page changes only the URL: the first page's description stays.
    await form(b).getByLabel('Endpoint URL').fill(hookUrl('second'));
    await form(b).getByRole('button', { name: 'Save' }).click();
    await b.getByText('The webhook was saved.').waitFor();
    expect(await hookNow()).toMatchObject({ url: hookUrl('second'), description: 'Order sync' });

    // The first page changes the URL too, from the version it saved: refused, the second's stays.
    await form(a).getByLabel('Endpoint URL').fill(hookUrl('third'));
    await form(a).getByRole('button', { name: 'Save' }).click();
    const alert = staleAlert(a);
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      'Someone else changed this webhook since you opened it: url.',
    );
    expect((await hookNow()).url).toBe(hookUrl('second'));
    await photograph(a, 'concurrent-webhook-412');

    await alert.getByRole('button', { name: 'Reload' }).click();
    expect(await staleAlert(a).count()).toBe(0);
    expect(await form(a).getByLabel('Endpoint URL').inputValue()).toBe(hookUrl('second'));
    expect(await form(a).getByLabel('Description').inputValue()).toBe('Order sync');

    // The enable switch: disabled in one page, the other (still showing it enabled) cannot switch it.
    await a.getByRole('button', { name: 'Disable' }).click();
    await a.getByRole('dialog').getByRole('button', { name: 'Disable' }).click();
    await a.getByText('The webhook is disabled.').waitFor();
    await b.getByRole('button', { name: 'Disable' }).click();
    await b.getByRole('dialog').getByRole('button', { name: 'Disable' }).click();
    await staleAlert(b).waitFor();
    expect(await staleAlert(b).textContent()).toContain('since you opened it: active.');
    await staleAlert(b).getByRole('button', { name: 'Reload' }).click();
    await b.getByText('This webhook is disabled.').waitFor();
    await a.getByRole('button', { name: 'Enable again' }).click();
    await a.getByText('The webhook is enabled again.').waitFor();
    expect(await hookNow()).toMatchObject({
      active: true,
      url: hookUrl('second'),
      description: 'Order sync',
    });
  });

  it('order notes and items: a stale save is refused, Reload shows the latest; a payment does not block notes', async () => {
    const productId = (await createProduct(api, { name: 'Enamel Mug', price: '12.50', inventory: 20 })).id;
    const res = await api.post('/api/v1/orders', {
      customer: { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper' },
      items: [{ product_id: productId, quantity: 2 }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json().data as { id: string; order_number: string };
    const orderNow = async () => (await api.get(`/api/v1/orders/${order.id}`)).json().data;
    const notes = (page: Page) => page.getByLabel('Internal notes');
    const saveNotes = (page: Page) => page.getByRole('button', { name: 'Save notes' }).click();
    const heading = `Order #${order.order_number}`;
    await open(a, `/orders/${order.id}`, heading);
    await open(b, `/orders/${order.id}`, heading);

    await notes(a).fill('Gift wrap');
    await saveNotes(a);
    await a.getByText('The notes were saved.').waitFor();

    await notes(b).fill('Leave at the door');
    await saveNotes(b);
    const alert = staleAlert(b);
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      'Someone else changed this order since you opened it: notes.',
    );
    expect((await orderNow()).notes).toBe('Gift wrap');
    await photograph(b, 'concurrent-order-notes-412');

    await alert.getByRole('button', { name: 'Reload' }).click();
    expect(await staleAlert(b).count()).toBe(0);
    expect(await notes(b).inputValue()).toBe('Gift wrap');

    // Paid meanwhile (a new version, notes untouched): the notes save goes through on top of it.
    const paid = await api.post(`/api/v1/orders/${order.id}/mark-paid`, {});
    expect(paid.statusCode, paid.body).toBe(200);
    await notes(b).fill('Gift wrap; leave at the door');
    await saveNotes(b);
    await b.getByText('The notes were saved.').waitFor();
    expect(await orderNow()).toMatchObject({ notes: 'Gift wrap; leave at the door', payment_status: 'paid' });

    // Items: the first page still shows the order as it was before the payment and the notes. An
    // edit prepared on it is refused whole (its amounts were those of that version), nothing moves.
    const dialog = a.getByRole('dialog');
    await a.getByRole('button', { name: 'Edit items' }).click();
    await dialog.getByLabel('Quantity of Enamel Mug').fill('3');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    const refused = staleAlert(a);
    await refused.waitFor();
    expect(await refused.textContent()).toContain('Someone else changed this order since you opened it.');
    expect((await orderNow()).line_items[0].quantity).toBe(2);
    await photograph(a, 'concurrent-order-items-412');

    await refused.getByRole('button', { name: 'Reload' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => notes(a).inputValue()).toBe('Gift wrap; leave at the door');
    await a.getByRole('button', { name: 'Edit items' }).click();
    await dialog.getByLabel('Quantity of Enamel Mug').fill('3');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await a.getByText('The items were saved.').waitFor();
    const after = await orderNow();
    expect([after.notes, after.payment_status, after.line_items[0].quantity]).toEqual([
      'Gift wrap; leave at the door',
      'partially_paid',
      3,
    ]);
  });
});
