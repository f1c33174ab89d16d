import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createCategory,
  createProduct,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { freePort } from '../helpers/processes.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * A store's team in the dashboard (contract §14, issue 33 items 1–3) against a real server, database
 * and SMTP server: the owner of two stores chooses one after signing in; invites a staff member with
 * permissions ticked by resource; the e-mail's link opens the accept page in another browser, where the
 * invitee sets a name and password and lands signed in; they see only what their permissions allow
 * and a refused page says why; the owner widens their permissions, which shows at the invitee's next
 * page, then removes them, which ends their session at once; the owner switches stores. Every
 * photographed page passes axe-core.
 */
describe.skipIf(!hasChromium())('staff and the store switcher in Chromium', () => {
  const OWNER = 'owner@staff.test';
  const STAFF = 'ada@staff.test';
  const PASSWORD = 'correct horse battery staple';
  const STAFF_PASSWORD = 'analytical engine 1843';
  let app: TestApp;
  let api: Client;
  let base: string;
  let smtp: SmtpCatcher;
  let owner: LaunchedBrowser;
  let invitee: LaunchedBrowser;
  let page: Page;
  let inviteLink: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    smtp = await startSmtpCatcher();
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base, smtpUrl: smtp.url } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const first = await app.services.stores.createStore({ slug: `teashop-${port}`, name: 'Tea Shop' });
    const second = await app.services.stores.createStore({ slug: `bakery-${port}`, name: 'Bakery' });
    api = client(app, (await app.services.stores.createApiKey(first.id, { scopes: 'all' })).key);
    await createProduct(api, { name: 'Sencha', price: '9.50', inventory: 5 });
    await createCategory(api, { name: 'Green teas' });
    for (const slug of [first.slug, second.slug])
      await app.services.team.createMember({
        email: OWNER,
        password: PASSWORD,
        storeSlug: slug,
        role: 'owner',
        permissions: 'all',
      });
    owner = await launchBrowser();
    page = owner.page;
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await invitee?.close();
    await owner?.close();
    await app?.close();
    await smtp?.close();
  });

  const heading = (p: Page, name: string) => p.getByRole('heading', { level: 1, name });
  const navLinks = async (p: Page) =>
    (await p.getByRole('navigation', { name: 'Dashboard' }).getByRole('link').allTextContents()).map((t) =>
      t.replace(' (opens in a new tab)', ''),
    );

  async function atBothWidths(p: Page, name: string) {
    await screenshot(p, `33-${name}-1280`);
    await p.setViewportSize({ width: 390, height: 844 });
    await screenshot(p, `33-${name}-390`);
    await p.setViewportSize({ width: 1280, height: 900 });
  }

  it('asks the owner of two stores which to open after signing in', async () => {
    await page.goto(`${base}/admin/`);
    await page.getByLabel('E-mail').fill(OWNER);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, 'Choose a store').waitFor();
    await atBothWidths(page, 'choose-store');
    await page.getByRole('button', { name: /Tea Shop/ }).click();
    await heading(page, 'Overview').waitFor();
    expect(await navLinks(page)).toContain('Activity');
  });

  it('invites a staff member with permissions grouped by resource, and the e-mail carries the link', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Settings' }).click();
    await page
      .getByRole('navigation', { name: 'Settings sections' })
      .getByRole('link', { name: 'Staff' })
      .click();
    await heading(page, 'Staff').waitFor();
    await page.getByTestId('members').getByText(OWNER).waitFor();
    await page.getByRole('button', { name: 'Invite staff' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite staff' });
    await dialog.getByLabel('E-mail').fill(STAFF);
    const orders = dialog.getByRole('group', { name: 'Orders' });
    await orders.getByRole('checkbox', { name: /^View orders/ }).check();
    await dialog
      .getByRole('group', { name: 'Products' })
      .getByRole('checkbox', { name: /^View products/ })
      .check();
    await atBothWidths(page, 'invite');
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `An invitation was sent to ${STAFF}.` })
      .waitFor();
    const pending = page.getByTestId('invitations');
    await pending.getByText(STAFF).waitFor();
    expect(await pending.textContent()).toContain('Orders (view), Products (view)');
    await atBothWidths(page, 'staff');

    const mail = await smtp.waitFor((m) => m.envelope.to.includes(STAFF));
    const link = /https?:\/\/\S+\/admin\/invite\/[A-Za-z0-9_-]+/.exec(mail.text)?.[0];
    expect(link).toBeDefined();
    inviteLink = link as string;
    expect(inviteLink.startsWith(`${base}/admin/invite/`)).toBe(true);
  });

  it('lets the invitee set a name and password on the link and opens the dashboard signed in', async () => {
    invitee = await launchBrowser();
    const p = invitee.page;
    p.on('pageerror', (error) => pageErrors.push(error.message));
    await p.goto(inviteLink);
    await heading(p, 'Join Tea Shop').waitFor();
    expect(await p.getByTestId('invite-email').textContent()).toBe(STAFF);
    await p.getByLabel('Your name').fill('Ada Lovelace');
    await p.getByLabel('Choose a password').fill(STAFF_PASSWORD);
    await atBothWidths(p, 'accept-invite');
    await p.getByRole('button', { name: 'Join the store' }).click();

    // No analytics:read: the overview is refused, saying what is missing and whom to ask.
    await heading(p, 'Overview').waitFor();
    await p
      .getByTestId('refused')
      .getByText("You need the analytics:read permission — ask the store's owner.")
      .waitFor();
    expect(await navLinks(p)).toEqual(['Orders', 'Products', 'Categories']);
    await atBothWidths(p, 'refused');

    // The link worked once.
    const again = await launchBrowser();
    try {
      await again.page.goto(inviteLink);
      await again.page.getByText('This invitation can no longer be used.').waitFor();
    } finally {
      await again.close();
    }
  });

  it('shows the staff member only what the permissions allow, and explains a page they may not open', async () => {
    const p = invitee.page;
    await p.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Products' }).click();
    await heading(p, 'Products').waitFor();
    await p.getByText('Sencha').waitFor();
    expect(await p.getByRole('button', { name: 'New product' }).count()).toBe(0);
    // A row's own write actions are hidden too: viewing categories does not offer to delete one.
    await p.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Categories' }).click();
    await p.getByText('Green teas').waitFor();
    expect(await p.getByRole('button', { name: 'Delete Green teas' }).count()).toBe(0);

    await p.goto(`${base}/admin/customers`);
    await heading(p, 'Customers').waitFor();
    await p.getByText("You need the customers:read permission — ask the store's owner.").waitFor();
    await p.goto(`${base}/admin/settings/staff`);
    await p.getByText("Only the store's owner can open this page").waitFor();
  });

  it('lets the owner widen the permissions, which holds at the staff member’s next page', async () => {
    // The owner comes back to the page: the invitee is a member now, the invitation gone.
    await page.reload();
    await heading(page, 'Staff').waitFor();
    await page.getByText('No pending invitations').waitFor();
    const row = page.getByTestId('members').getByRole('row').filter({ hasText: STAFF });
    await row.getByText('Ada Lovelace').waitFor();
    await page.getByRole('button', { name: 'Edit permissions of Ada Lovelace' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByRole('checkbox', { name: /^View orders/ }).isChecked()).toBe(true);
    await dialog.getByRole('checkbox', { name: /^Edit products/ }).check();
    await dialog.getByRole('button', { name: 'Save permissions' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'The permissions of Ada Lovelace were saved.' })
      .waitFor();
    await row.getByText('Products (view, edit)').waitFor();

    const p = invitee.page;
    await p.goto(`${base}/admin/products`);
    await p.getByRole('button', { name: 'New product' }).first().waitFor();
    await p.goto(`${base}/admin/categories`);
    await p.getByRole('button', { name: 'Delete Green teas' }).waitFor();
  });

  it('removes the member after a confirmation, and their open session ends at once', async () => {
    await page.getByRole('button', { name: 'Remove Ada Lovelace' }).click();
    const confirm = page.getByTestId('confirm-dialog');
    await confirm.getByText('loses access to this store at once').waitFor();
    await atBothWidths(page, 'remove-member');
    await confirm.getByRole('button', { name: 'Remove from the store' }).click();
    await page.getByRole('status').filter({ hasText: 'Ada Lovelace was removed from the store.' }).waitFor();
    await expect.poll(() => page.getByTestId('members').getByText(STAFF).count()).toBe(0);

    const p = invitee.page;
    await p.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Orders' }).click();
    await heading(p, 'Sign in to your store').waitFor();
    await p.getByText('Your session ended. Please sign in again.').waitFor();
  });

  it('switches the owner to the other store from the top bar', async () => {
    const switcher = page.getByRole('banner').getByRole('button', { name: /switch store/ });
    expect(await switcher.textContent()).toContain('Tea Shop');
    await switcher.click();
    await page.getByRole('button', { name: /Bakery/ }).waitFor();
    await atBothWidths(page, 'switcher');
    await page.getByRole('button', { name: /Bakery/ }).click();
    await heading(page, 'Overview').waitFor();
    await page.getByRole('banner').getByText('Bakery').waitFor();
    // The session is the other store's: its products, not Tea Shop's.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Products' }).click();
    await page.getByText('No products yet').waitFor();
    expect(pageErrors).toEqual([]);
  });
});
