import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/modules/stores/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { client, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { freePort } from '../helpers/processes.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * Issue 33, item 6: the operator console at /operator, used as an operator uses it — sign in, search
 * the stores, open one, suspend it with a reason (its shop then answers 503), unsuspend it, delete it
 * by typing its slug, sign out — at 1280 and 390 px, with axe-core on every page photographed.
 */
describe.skipIf(!hasChromium())('the operator console', () => {
  const EMAIL = 'ops@platform.test';
  const PASSWORD = 'operators keep the lights on';
  let app: TestApp;
  let base: string;
  let browser: LaunchedBrowser;
  let page: Page;
  let target: { id: string; slug: string; name: string };
  let otherSlug: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base } });
    await app.server.listen({ port, host: '127.0.0.1' });
    // An operator as `emporium operator create` makes one: the scrypt hash of passwords.ts.
    await app.database.db
      .insertInto('operators')
      .values({ id: crypto.randomUUID(), email: EMAIL, password_hash: await hashPassword(PASSWORD) })
      .execute();

    // More stores than a page (50) holds, the oldest: "Load more" brings the last of them.
    for (let i = 0; i < 50; i += 1) {
      await app.services.stores.createStore({ slug: `filler-${i}-${port}`, name: `Filler ${i}` });
    }
    const other = await createStoreWithKey(app, { slug: `bakery-${port}` });
    otherSlug = other.store.slug;
    const made = await createStoreWithKey(app, { slug: `lamps-${port}` });
    await app.database.db
      .updateTable('stores')
      .set({ name: 'Lamp Lab' })
      .where('id', '=', made.store.id)
      .execute();
    target = { id: made.store.id, slug: made.store.slug, name: 'Lamp Lab' };
    await app.services.stores.createAdminUser({
      email: 'owner@lamps.test',
      password: 'a long owner password',
      storeSlug: target.slug,
    });
    const product = await client(app, made.key).post('/api/v1/products', {
      name: 'Desk lamp',
      price: '49.00',
      status: 'active',
    });
    expect(product.statusCode, product.body).toBe(201);

    browser = await launchBrowser();
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const shopStatus = async (slug: string) => {
    const shop = await fetch(`${base}/shop/${slug}/`);
    const storefront = await fetch(`${base}/api/storefront/${slug}/products`);
    return { shop: shop.status, storefront: storefront.status };
  };

  const noHorizontalScroll = async () =>
    expect(
      await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
    ).toBe(0);

  it('refuses a wrong password on the page, then signs in and lists the stores', async () => {
    await page.goto(`${base}/operator/`);
    await page.getByRole('heading', { level: 1, name: 'Sign in to the operator console' }).waitFor();
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('Could not sign in').waitFor();
    await screenshot(page, 'operator-sign-in-error-1280');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Stores' }).waitFor();
    const cookies = await browser.context.cookies(base);
    const cookie = cookies.find((c) => c.name === 'emporium_operator');
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe('Strict');

    const row = page.getByRole('row').filter({ hasText: target.slug });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual([
      expect.stringContaining(target.name),
      'owner@lamps.test',
      'Active',
      expect.any(String),
      '1',
      '0',
      '$0.00',
      expect.any(String),
    ]);
    await screenshot(page, 'operator-stores-1280');

    // Newest first, 50 a page: the two oldest fillers come with "Load more", appended.
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(50);
    expect(await page.getByRole('link', { name: 'Filler 0', exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.getByRole('link', { name: 'Filler 0', exact: true }).waitFor();
    expect(await rows.count()).toBe(52);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
  });

  it('searches by slug and opens the store page', async () => {
    await page.getByLabel('Search stores').fill('LAMPS');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('row').filter({ hasText: otherSlug }).waitFor({ state: 'detached' });
    expect(await page.getByRole('row').filter({ hasText: target.slug }).count()).toBe(1);

    await page.getByRole('link', { name: target.name }).click();
    await page.getByRole('heading', { level: 1, name: target.name }).waitFor();
    expect(page.url()).toBe(`${base}/operator/stores/${target.id}`);
    await page.getByText('owner@lamps.test').waitFor();
    await screenshot(page, 'operator-store-1280');
  });

  it('suspends with a required reason: the shop answers 503 until unsuspended', async () => {
    expect(await shopStatus(target.slug)).toEqual({ shop: 200, storefront: 200 });
    await page.getByRole('button', { name: 'Suspend', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Suspend ${target.name}` });
    await dialog.waitFor();
    // The dialog takes the focus, on its reason.
    expect(await page.evaluate("document.activeElement?.getAttribute('name')")).toBe('reason');
    await dialog.getByRole('button', { name: 'Suspend store' }).click();
    await dialog.getByText('Give the reason').waitFor();
    await screenshot(page, 'operator-suspend-dialog-1280');

    await dialog.getByLabel('Reason').fill('Unpaid platform invoices');
    await dialog.getByRole('button', { name: 'Suspend store' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('status').getByText(`${target.name} is suspended.`).waitFor();
    await page.getByText('Reason: Unpaid platform invoices').waitFor();
    expect(await shopStatus(target.slug)).toEqual({ shop: 503, storefront: 503 });
    expect(await shopStatus(otherSlug)).toEqual({ shop: 200, storefront: 200 });
    await screenshot(page, 'operator-store-suspended-1280');

    await page.getByRole('button', { name: 'Unsuspend' }).click();
    const confirm = page.getByRole('dialog', { name: `Unsuspend ${target.name}?` });
    await confirm.getByRole('button', { name: 'Unsuspend' }).click();
    await page.getByRole('status').getByText(`${target.name} is active again.`).waitFor();
    expect(await shopStatus(target.slug)).toEqual({ shop: 200, storefront: 200 });
  });

  it('fits 390 px: the list as cards, the store page, the dialogs', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Suspend', exact: true }).waitFor();
    await noHorizontalScroll();
    await screenshot(page, 'operator-store-390');
    await page.getByRole('button', { name: 'Delete store…' }).click();
    await page.getByRole('dialog', { name: `Delete ${target.name}` }).waitFor();
    expect(await page.evaluate("document.activeElement?.getAttribute('name')")).toBe('confirm-slug');
    await screenshot(page, 'operator-delete-dialog-390');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    // Escape gives the focus back to what opened the dialog.
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Delete store…');

    await page.getByRole('link', { name: 'Stores', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Stores' }).waitFor();
    await page.getByRole('row').filter({ hasText: otherSlug }).waitFor();
    await noHorizontalScroll();
    await screenshot(page, 'operator-stores-390');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('deletes only once the slug is typed, then says so on the list, which no longer has it', async () => {
    await page.getByRole('link', { name: target.name }).click();
    await page.getByRole('heading', { level: 1, name: target.name }).waitFor();
    await page.getByRole('button', { name: 'Delete store…' }).click();
    const dialog = page.getByRole('dialog', { name: `Delete ${target.name}` });
    const remove = dialog.getByRole('button', { name: 'Delete this store' });
    expect(await remove.isDisabled()).toBe(true);
    const typed = dialog.getByLabel(`Type the store's slug, ${target.slug}, to confirm`);
    await typed.fill(target.slug.slice(0, -1));
    expect(await remove.isDisabled()).toBe(true);
    await typed.fill(target.slug);
    expect(await remove.isEnabled()).toBe(true);
    await screenshot(page, 'operator-delete-dialog-1280');
    await remove.click();

    await page.getByRole('heading', { level: 1, name: 'Stores' }).waitFor();
    expect(page.url()).toBe(`${base}/operator/`);
    await page.getByRole('status').getByText(`${target.name} (${target.slug}) is being deleted`).waitFor();
    await page.getByRole('row').filter({ hasText: otherSlug }).waitFor();
    expect(await page.getByRole('row').filter({ hasText: target.slug }).count()).toBe(0);
    await screenshot(page, 'operator-stores-after-delete-1280');

    await page.goto(`${base}/operator/stores/${target.id}`);
    await page.getByText('This store does not exist').waitFor();
  });

  it('signs out: the cookie no longer opens the API, and a reload shows the sign-in page', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to the operator console' }).waitFor();
    await page.getByText('You are signed out.').waitFor();
    const me = await page.evaluate("fetch('/api/operator/me').then((r) => r.status)");
    expect(me).toBe(401);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Sign in to the operator console' }).waitFor();
    await screenshot(page, 'operator-sign-in-390');
  });
});
