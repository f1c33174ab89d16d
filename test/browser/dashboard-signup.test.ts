import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { UNLIMITED } from '../helpers/catalog-factories.js';
import { freePort } from '../helpers/processes.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * Sign-up as a new merchant meets it (issue 33, item 5): the sign-in page's link, the details form,
 * the code from the e-mail (caught by a real SMTP server), and the dashboard opening on the
 * checklist, whose "View your shop" ticks itself off. Every photographed page passes axe-core.
 */
describe.skipIf(!hasChromium())('Sign-up in Chromium', () => {
  const EMAIL = 'new.merchant@signup.test';
  let app: TestApp;
  let smtp: SmtpCatcher;
  let base: string;
  let browser: LaunchedBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    smtp = await startSmtpCatcher();
    app = await buildTestApp({
      config: { ...UNLIMITED, publicUrl: base, smtpUrl: smtp.url, signup: 'open' },
    });
    await app.server.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
    page = browser.page;
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await smtp?.close();
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name });

  async function atBothWidths(name: string) {
    await screenshot(page, `${name}-1280`);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, `${name}-390`);
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it('signs up from the sign-in page, with the mailed code, and lands on the checklist', async () => {
    await page.goto(`${base}/admin/`);
    await heading('Sign in to your store').waitFor();
    await page.getByRole('link', { name: 'Create a store' }).click();
    await heading('Create your store').waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/signup');
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByLabel('Store name').fill("Bob's Bikes");
    await page.getByLabel('Currency').selectOption('EUR');
    await page.getByLabel('Time zone').selectOption('Europe/Berlin');
    await atBothWidths('signup-details');

    await page.getByRole('button', { name: 'Continue' }).click();
    await heading('Check your e-mail').waitFor();
    const mail = await smtp.waitFor((m) => (m.to ?? '').includes(EMAIL));
    const code = mail.text.match(/\b(\d{6})\b/)?.[1] ?? '';
    // A wrong code is said on the page, which stays.
    await page.getByLabel('Code').fill(code === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Create my store' }).click();
    await page.getByText('The code is wrong or has expired').waitFor();
    await atBothWidths('signup-code-wrong');
    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Create my store' }).click();

    await heading('Overview').waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/');
    const card = page.locator('section.onboarding');
    await card.waitFor();
    await card.getByText('4 of 4 steps left.').waitFor();
    expect(await card.getByRole('link').allTextContents()).toEqual([
      'Add a product',
      'Set up shipping',
      'Connect payments',
      'View your shop (opens in a new tab)',
    ]);
    await atBothWidths('signup-checklist');
    const row = await app.database.db
      .selectFrom('stores')
      .select(['slug', 'currency', 'timezone'])
      .where('name', '=', "Bob's Bikes")
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ slug: 'bobs-bikes', currency: 'EUR', timezone: 'Europe/Berlin' });

    // "View your shop" opens the shop in a new tab and ticks itself off.
    const [shop] = await Promise.all([
      browser.context.waitForEvent('page'),
      card.getByRole('link', { name: /View your shop/ }).click(),
    ]);
    await shop.close();
    await page.getByTestId('onboarding-view_shop').and(page.locator('.done')).waitFor();
    await card.getByText('3 of 4 steps left.').waitFor();
    await page.getByTestId('onboarding-add_product').getByRole('link').click();
    await page.waitForURL(`${base}/admin/products/new`);
    expect(pageErrors).toEqual([]);
  });

  it('a signed-in merchant opening /admin/signup lands on the overview', async () => {
    await page.goto(`${base}/admin/signup`);
    await heading('Overview').waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/');
  });
});
