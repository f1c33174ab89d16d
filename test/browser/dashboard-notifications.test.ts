import path from 'node:path';
import { simpleParser } from 'mailparser';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, startTestWorker, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { freePort } from '../helpers/processes.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, SCREENSHOTS, screenshot } from './chromium.js';

/**
 * Settings → Notifications and an order's e-mails as a merchant meets them (issue 32, item 7),
 * against a real server and database: a kind switched off stays off, an edit is previewed live and
 * saved, a broken template names its line and saves nothing, the default comes back, a test is
 * queued and arrives through the worker at a real SMTP server, and the order page lists its e-mails
 * and resends one. Every photographed page passes axe-core.
 */
describe.skipIf(!hasChromium())('Settings → Notifications and an order’s e-mails in Chromium', () => {
  const EMAIL = 'owner@notifications.test';
  const PASSWORD = 'correct horse battery staple';
  let app: TestApp;
  let api: Client;
  let base: string;
  let browser: LaunchedBrowser;
  let page: Page;
  let productId: string;
  let smtp: SmtpCatcher;
  let worker: ReturnType<typeof startTestWorker>;
  const pageErrors: string[] = [];
  /** The dashboard's preview requests (their bodies): the live preview sends the unsaved parts. */
  const previews: unknown[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // A mailbox that does not exist: its e-mails fail at once (SMTP 5xx).
    smtp = await startSmtpCatcher({
      fault: (m) =>
        m.envelope.to.includes('nobody@example.com')
          ? { code: 550, message: 'No such mailbox here' }
          : undefined,
    });
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base, smtpUrl: smtp.url } });
    await app.server.listen({ port, host: '127.0.0.1' });
    worker = startTestWorker(app);
    const store = await createStoreWithKey(app, { slug: `notifications-${port}` });
    api = client(app, store.key);
    await app.services.stores.createAdminUser({
      email: EMAIL,
      password: PASSWORD,
      storeSlug: store.store.slug,
    });
    productId = (await createProduct(api, { name: 'Enamel Mug', price: '12.50', inventory: 20 })).id;
    browser = await launchBrowser();
    page = browser.page;
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/preview'))
        previews.push(request.postDataJSON());
    });
    await page.goto(`${base}/admin/`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await heading('Overview').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await app?.close();
    await smtp?.close();
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name });
  const template = async (kind: string) =>
    (await api.get(`/api/v1/notifications/templates/${kind}`)).json().data as {
      enabled: boolean;
      subject: string;
      html: string;
      text: string;
      customised: boolean;
    };
  const emailsOf = async (query: Record<string, string>) =>
    (await api.get(`/api/v1/notifications?${new URLSearchParams(query)}`)).json().data as {
      id: string;
      kind: string;
      to: string;
      status: string;
    }[];
  const field = (label: string) => page.getByLabel(label, { exact: true });
  const previewFrame = () => page.frameLocator('[data-testid="preview-html"]');

  async function atBothWidths(name: string) {
    await screenshot(page, `${name}-1280`);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, `${name}-390`);
    // The sandboxed preview is a frame of another origin (another process), which a full-page capture
    // leaves blank below the fold: the phone's screen is also photographed with the preview on it.
    if (await page.getByTestId('preview-html').count()) {
      await page.evaluate(
        "document.getElementById('message-preview-title').scrollIntoView({ block: 'start' }); scrollBy(0, -70)",
      );
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-preview-390.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  async function openNotifications() {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Settings' }).click();
    await heading('Settings').waitFor();
    await page
      .getByRole('navigation', { name: 'Settings sections' })
      .getByRole('link', { name: 'Notifications' })
      .click();
    await heading('Notifications').waitFor();
    await page.getByRole('switch', { name: 'Order confirmation' }).waitFor();
  }

  async function waitForPreview() {
    await page.getByTestId('preview-state').filter({ hasText: 'Up to date' }).waitFor();
  }

  it('lists the seven e-mails in two groups and turns one off, saved at once', async () => {
    await openNotifications();
    const customers = page.getByRole('list', { name: 'To your customers' }).getByRole('switch');
    const store = page.getByRole('list', { name: 'To you', exact: true }).getByRole('switch');
    expect(await customers.count()).toBe(5);
    expect(await store.count()).toBe(2);
    expect(await page.getByRole('switch', { name: 'Low stock' }).isChecked()).toBe(true);
    await atBothWidths('32-notifications');

    // Keyboard: focus the switch and press Space.
    const shipping = page.getByRole('switch', { name: 'Shipping confirmation' });
    expect(await shipping.isChecked()).toBe(true);
    await shipping.focus();
    await page.keyboard.press('Space');
    await page.getByRole('status').filter({ hasText: 'Shipping confirmation off: saved.' }).waitFor();
    expect((await template('shipping_confirmation')).enabled).toBe(false);
    expect((await template('order_confirmation')).enabled).toBe(true);

    await page.reload();
    await heading('Notifications').waitFor();
    await page.getByRole('switch', { name: 'Order confirmation' }).waitFor();
    expect(await page.getByRole('switch', { name: 'Shipping confirmation' }).isChecked()).toBe(false);
    expect(await page.getByRole('switch', { name: 'Order confirmation' }).isChecked()).toBe(true);
  });

  it('edits the subject and the HTML body with a live preview, saves, and finds them after a reload', async () => {
    await page.getByRole('link', { name: 'Edit Order confirmation' }).click();
    await heading('Order confirmation').waitFor();
    await waitForPreview();
    const before = await template('order_confirmation');
    expect(await field('Subject').inputValue()).toBe(before.subject);
    expect(await page.getByRole('list', { name: 'Variables' }).textContent()).toContain('order');
    await atBothWidths('32-notification-editor');

    previews.length = 0;
    await field('Subject').fill('Thanks for order #{{ order.order_number }} at {{ store.name }}');
    await field('HTML body').fill('<h1>Thank you, friend</h1>\n<p>Order {{ order.order_number }}</p>');
    await page
      .getByTestId('preview-subject')
      .filter({ hasText: /^Thanks for order #\d+ at / })
      .waitFor();
    await previewFrame().getByRole('heading', { name: 'Thank you, friend' }).waitFor();
    await waitForPreview();
    // The merchant's HTML runs in a frame with every sandbox restriction: no scripts, its own origin.
    expect(await page.getByTestId('preview-html').getAttribute('sandbox')).toBe('');
    // The preview sent the unsaved parts only, after the typing paused (not one request per key).
    expect(previews.length).toBeLessThan(6);
    expect(previews.at(-1)).toEqual({
      subject: 'Thanks for order #{{ order.order_number }} at {{ store.name }}',
      html: '<h1>Thank you, friend</h1>\n<p>Order {{ order.order_number }}</p>',
    });
    // The plain-text part is untouched, and shown too.
    expect((await page.getByTestId('preview-text').textContent())?.length).toBeGreaterThan(20);
    expect((await template('order_confirmation')).subject).toBe(before.subject);

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Order confirmation was saved.').waitFor();
    const saved = await template('order_confirmation');
    expect(saved).toMatchObject({
      subject: 'Thanks for order #{{ order.order_number }} at {{ store.name }}',
      html: '<h1>Thank you, friend</h1>\n<p>Order {{ order.order_number }}</p>',
      text: before.text,
      customised: true,
    });

    await page.reload();
    await heading('Order confirmation').waitFor();
    expect(await field('Subject').inputValue()).toBe(saved.subject);
    expect(await field('HTML body').inputValue()).toBe(saved.html);
    expect(await page.getByText('Customised', { exact: true }).count()).toBeGreaterThan(0);
    await waitForPreview();
    await previewFrame().getByRole('heading', { name: 'Thank you, friend' }).waitFor();
  });

  it('shows a broken template’s error beside its field, with its line, and saves nothing', async () => {
    const before = await template('order_confirmation');
    await field('HTML body').fill('<p>One</p>\n<p>Two</p>\n{% nosuchtag %}\n<p>Four</p>');
    const html = field('HTML body');
    await page.locator('.field-invalid').filter({ has: html }).waitFor();
    expect(await html.getAttribute('aria-invalid')).toBe('true');
    const described = (await html.getAttribute('aria-describedby')) ?? '';
    const errorText = (
      await Promise.all(described.split(' ').map((id) => page.locator(`[id="${id}"]`).textContent()))
    ).join(' ');
    expect(errorText).toMatch(/line 3/i);
    expect(errorText).toContain('nosuchtag');
    // The last good preview stays on screen.
    await previewFrame().getByRole('heading', { name: 'Thank you, friend' }).waitFor();
    await atBothWidths('32-notification-editor-error');

    // "Go to line 3" selects that line in the field.
    await page.getByRole('button', { name: 'Go to line 3 of the HTML body' }).click();
    expect(
      await html.evaluate((el) => {
        const area = el as unknown as { value: string; selectionStart: number; selectionEnd: number };
        return area.value.slice(area.selectionStart, area.selectionEnd);
      }),
    ).toBe('{% nosuchtag %}');

    const refused = page.waitForResponse(
      (r) =>
        r.request().method() === 'PUT' && r.url().endsWith('/notifications/templates/order_confirmation'),
    );
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    expect((await refused).status()).toBe(400);
    expect(await page.getByText('Order confirmation was saved.').count()).toBe(0);
    expect(await template('order_confirmation')).toEqual(before);

    await page.getByRole('button', { name: 'Discard changes' }).click();
    expect(await field('HTML body').inputValue()).toBe(before.html);
    await waitForPreview();
    expect(await html.getAttribute('aria-invalid')).toBeNull();
  });

  it('sends a test to the signed-in merchant', async () => {
    expect(await field('Send a test to').inputValue()).toBe(EMAIL);
    await page.getByRole('button', { name: 'Send test' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Queued for ${EMAIL}` })
      .waitFor();
    // The worker sends it: the saved template (the broken draft was discarded), rendered.
    const caught = await smtp.waitFor((m) => m.envelope.to.includes(EMAIL));
    const mail = await simpleParser(caught.raw);
    expect(mail.subject).toMatch(/^Thanks for order #\d+ at Test Store$/);
    expect(mail.html).toContain('<h1>Thank you, friend</h1>');
    expect(mail.text).toMatch(/order #\d+/i);
  });

  it('restores the default wording after a confirmation', async () => {
    await page.getByRole('button', { name: 'Restore default' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Restore the default Order confirmation?' }).waitFor();
    await dialog.getByRole('button', { name: 'Restore default' }).click();
    await page.getByText('Order confirmation is back to the default wording.').waitFor();
    const restored = await template('order_confirmation');
    expect(restored.customised).toBe(false);
    expect(restored.subject).not.toContain('Thanks for order');
    expect(await field('Subject').inputValue()).toBe(restored.subject);
    expect(await page.getByRole('button', { name: 'Restore default' }).count()).toBe(0);
  });

  it('keeps a change made meanwhile elsewhere: merges another part, refuses the same part (412)', async () => {
    const writes: (string | undefined)[] = [];
    const onRequest = (r: { method(): string; url(): string; headers(): Record<string, string> }) => {
      if (r.method() === 'PUT' && r.url().endsWith('/templates/order_confirmation'))
        writes.push(r.headers()['if-match']);
    };
    page.on('request', onRequest);
    // Someone else rewords the text part: the html edited here is saved on top of it.
    let res = await api.put('/api/v1/notifications/templates/order_confirmation', {
      text: 'Text from elsewhere',
    });
    expect(res.statusCode, res.body).toBe(200);
    await field('HTML body').fill('<p>Mine</p>');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Order confirmation was saved.').waitFor();
    expect(await template('order_confirmation')).toMatchObject({
      html: '<p>Mine</p>',
      text: 'Text from elsewhere',
    });
    expect(await field('Plain-text body').inputValue()).toBe('Text from elsewhere');
    expect(writes.length).toBe(2);
    expect(writes.every((tag) => tag?.startsWith('"') || tag?.startsWith('W/'))).toBe(true);

    // Someone else changes the subject too: this one's subject is refused, nothing saved.
    res = await api.put('/api/v1/notifications/templates/order_confirmation', {
      subject: 'Subject from elsewhere',
    });
    expect(res.statusCode, res.body).toBe(200);
    await field('Subject').fill('My subject');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Someone else changed this e-mail since you opened it: subject.' })
      .waitFor();
    expect((await template('order_confirmation')).subject).toBe('Subject from elsewhere');
    await page.getByRole('button', { name: 'Reload' }).click();
    // Reload fetches the template again; the field changes when that answer lands.
    await expect.poll(() => field('Subject').inputValue()).toBe('Subject from elsewhere');
    page.off('request', onRequest);

    expect((await api.del('/api/v1/notifications/templates/order_confirmation')).statusCode).toBe(200);
  });

  it('lists an order’s e-mails on its page, and Resend adds one', async () => {
    const res = await api.post('/api/v1/orders', {
      customer: { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper' },
      items: [{ product_id: productId, quantity: 2 }],
      send_receipt: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json().data as { id: string; order_number: string };
    expect((await emailsOf({ order_id: order.id })).map((n) => n.kind)).toContain('order_confirmation');

    await page.goto(`${base}/admin/orders/${order.id}`);
    await heading(`Order #${order.order_number}`).waitFor();
    const rows = page.getByTestId('order-email');
    await rows.first().waitFor();
    const first = rows.filter({ hasText: 'Order confirmation' });
    expect(await first.count()).toBe(1);
    expect(await first.textContent()).toContain('grace@example.com');
    const count = await rows.count();
    await atBothWidths('32-order-emails');

    await page.getByRole('button', { name: 'Resend Order confirmation to grace@example.com' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Resend' }).click();
    await page.getByText('Order confirmation queued again for grace@example.com.').waitFor();
    await expect.poll(() => rows.count()).toBe(count + 1);
    const after = await emailsOf({ order_id: order.id, kind: 'order_confirmation' });
    expect(after).toHaveLength(2);
    expect(after.every((n) => n.to === 'grace@example.com')).toBe(true);
  });

  it('shows a failed e-mail with its last error', async () => {
    const res = await api.post('/api/v1/orders', {
      customer: { email: 'nobody@example.com', first_name: 'No', last_name: 'Body' },
      items: [{ product_id: productId, quantity: 1 }],
      send_receipt: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json().data as { id: string; order_number: string };
    await expect
      .poll(async () => (await emailsOf({ order_id: order.id, kind: 'order_confirmation' }))[0]?.status, {
        timeout: 20_000,
      })
      .toBe('failed');

    await page.goto(`${base}/admin/orders/${order.id}`);
    await heading(`Order #${order.order_number}`).waitFor();
    const row = page.getByTestId('order-email').filter({ hasText: 'nobody@example.com' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Failed');
    expect(await row.textContent()).toContain('No such mailbox here');
    await atBothWidths('32-order-emails-failed');
  });

  it('threw no script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
