import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type Client, client, createProduct, UNLIMITED } from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { checkoutBody, setPricing } from '../helpers/order-factories.js';
import { freePort } from '../helpers/processes.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * The shop's account in Debian's Chromium against a real server and a real SMTP capture: sign in by
 * keyboard with the one-time code from the e-mail, see an order placed through the storefront
 * checkout and its tracking once the merchant fulfils it, edit details, addresses and the wishlist,
 * sign out. Every page is photographed (and audited with axe-core) at 1280 and 390 px.
 */
describe.skipIf(!hasChromium())('shop account in Chromium', () => {
  const EMAIL = 'grace@shopper.test';
  let app: TestApp;
  let smtp: SmtpCatcher;
  let api: Client;
  let base: string;
  let shop: string;
  let browser: LaunchedBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  let order: { id: string; orderNumber: string };
  let apronSlug: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    smtp = await startSmtpCatcher();
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base, smtpUrl: smtp.url } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const store = await createStoreWithKey(app, { slug: `account-${port}` });
    await app.database.db
      .updateTable('stores')
      .set({ name: 'Harbour Goods', colors: JSON.stringify({ primary: '#0f3d3e', accent: '#0e7490' }) })
      .where('id', '=', store.store.id)
      .execute();
    shop = `${base}/shop/${store.store.slug}`;
    api = client(app, store.key);
    await setPricing(app, store.store.id, { shipping_flat_rate: 500, tax_rate_bps: 1000 });
    const mug = await createProduct(api, { name: 'Enamel Mug', price: '12.50', inventory: 20 });
    const apron = await createProduct(api, { name: 'Linen Apron', price: '24.00', inventory: 5 });
    apronSlug = apron.slug;
    const placed = await client(app).post(
      `/api/storefront/${store.store.slug}/checkout`,
      checkoutBody(
        [
          { productId: mug.id, quantity: 2 },
          { productId: apron.id, quantity: 1 },
        ],
        {
          email: EMAIL,
          firstName: 'Grace',
          lastName: 'Hopper',
          paymentMethod: 'test_card',
          cardToken: 'tok_visa',
        },
      ),
    );
    expect(placed.statusCode, placed.body).toBe(201);
    order = placed.json().data;
    browser = await launchBrowser();
    page = browser.page;
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await smtp?.close();
  });

  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });

  /** The page as it is, at 1280 px and at 390 px (each audited by axe-core), back to 1280 px. */
  async function photograph(name: string) {
    await screenshot(page, `shop-account-${name}-1280`);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, `shop-account-${name}-390`);
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  async function codeFor(email: string, after: number) {
    const mail = await smtp.waitFor((m) => smtp.messages.indexOf(m) >= after && (m.to ?? '').includes(email));
    const code = mail.text.match(/\b(\d{6})\b/)?.[1];
    if (!code) throw new Error('no code in the mail');
    return code;
  }

  it('signs in by keyboard with the one-time code from the e-mail, after a wrong code', async () => {
    await page.goto(`${shop}/account`);
    await heading('Sign in').waitFor();
    expect(new URL(page.url()).searchParams.get('return')).toBe('/account');
    await photograph('sign-in');

    // The e-mail field has the focus; Enter sends the form.
    const before = smtp.messages.length;
    await page.keyboard.type(EMAIL);
    await page.keyboard.press('Enter');
    await heading('Check your e-mail').waitFor();
    const code = await codeFor(EMAIL, before);
    const codeField = page.getByLabel('6-digit code');
    expect(await page.locator(':focus').getAttribute('id')).toBe('verify-code');
    expect(await codeField.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await codeField.getAttribute('inputmode')).toBe('numeric');
    await photograph('verify');

    await page.keyboard.type(code === '000000' ? '111111' : '000000');
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('The code is invalid or has expired');
    await photograph('verify-error');

    await page.getByLabel('6-digit code').fill('');
    await page.getByLabel('6-digit code').focus();
    await page.keyboard.type(code);
    await page.keyboard.press('Enter');
    await heading(/^(Your account|Hello, .+)$/).waitFor();
    const session = (await browser.context.cookies()).find((c) => c.name === 'emporium_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false });
  });

  it('lists the order placed at checkout, and shows its tracking once the merchant fulfils it', async () => {
    const row = page.getByRole('link', { name: `Order #${order.orderNumber}` });
    await row.waitFor();
    expect(await page.locator('.order-row').first().textContent()).toContain('3 items');
    await photograph('orders');

    await row.click();
    await heading(`Order #${order.orderNumber}`).waitFor();
    await page.getByText('Not shipped yet').waitFor();
    const fulfil = await api.post(`/api/v1/orders/${order.id}/fulfill`, {
      carrier: 'UPS',
      tracking_number: '1Z999AA10123456784',
      tracking_url: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
    });
    expect(fulfil.statusCode, fulfil.body).toBe(200);
    await page.reload();
    await page.getByText('1Z999AA10123456784').waitFor();
    const track = page.getByRole('link', { name: /Track your parcel/ });
    expect(await track.getAttribute('href')).toBe('https://www.ups.com/track?tracknum=1Z999AA10123456784');
    await photograph('order');

    await page.getByRole('link', { name: '← All your orders' }).click();
    await heading(/^(Your account|Hello, .+)$/).waitFor();
    expect(await page.locator('.order-row').first().textContent()).toContain('Completed');
  });

  it('saves first name, last name and phone', async () => {
    await page.getByLabel('First name').fill('Grace');
    await page.getByLabel('Last name').fill('Hopper');
    await page.getByLabel('Phone').fill('+1 555 0100');
    await page.getByRole('button', { name: 'Save details' }).click();
    await heading('Hello, Grace Hopper').waitFor();
    await page.getByRole('status').filter({ hasText: 'Your details were saved.' }).waitFor();
    await photograph('details-saved');
  });

  it('adds an address and deletes one', async () => {
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Addresses' }).click();
    await heading('Your addresses').waitFor();
    await photograph('addresses-empty');
    for (const [line1, city, postal, country] of [
      ['1 Main St', 'Springfield', '62701', 'US'],
      ['12 Rue de la Paix', 'Paris', '75002', 'FR'],
    ] as const) {
      await page.getByLabel('Address', { exact: true }).fill(line1);
      await page.getByLabel('City').fill(city);
      await page.getByLabel('Postal code').fill(postal);
      await page.getByLabel('Country code').fill(country);
      await page.getByRole('button', { name: 'Save address' }).click();
      await page.getByRole('status').filter({ hasText: 'The address was saved.' }).waitFor();
    }
    expect(await page.locator('.address-card').count()).toBe(2);
    await photograph('addresses');
    await page.getByRole('button', { name: 'Delete 12 Rue de la Paix, Paris' }).click();
    await page.getByRole('status').filter({ hasText: 'The address was deleted.' }).waitFor();
    expect(await page.locator('.address-card').count()).toBe(1);
  });

  it('saves a product from its page; the page then says it is saved; the wishlist removes it', async () => {
    await page.goto(`${shop}/products/${apronSlug}`);
    await heading('Linen Apron').waitFor();
    await page.getByRole('button', { name: 'Save to wishlist' }).click();
    await heading('Your wishlist').waitFor();
    await page.getByRole('status').filter({ hasText: 'Saved to your wishlist.' }).waitFor();
    await page.getByRole('link', { name: 'Linen Apron' }).waitFor();
    await photograph('wishlist');

    // Back on the (publicly cached) product page, its script asks and shows the saved state.
    await page.goto(`${shop}/products/${apronSlug}`);
    await page.getByRole('button', { name: 'Saved to your wishlist' }).waitFor();
    await photograph('product-saved');
    await page.getByRole('link', { name: 'See your wishlist' }).click();
    await heading('Your wishlist').waitFor();

    await page.getByRole('button', { name: 'Remove Linen Apron' }).click();
    await page.getByRole('status').filter({ hasText: 'Removed from your wishlist.' }).waitFor();
    await page.getByText('Nothing saved yet').waitFor();
    await photograph('wishlist-empty');
  });

  it('signs out by keyboard: back on the shop home, and the account asks to sign in again', async () => {
    const signOut = page.getByRole('button', { name: 'Sign out' });
    await signOut.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${shop}/`);
    expect((await browser.context.cookies()).find((c) => c.name === 'emporium_session')).toBeUndefined();
    await page.goto(`${shop}/account`);
    await heading('Sign in').waitFor();
  });

  it('signed out, "Save to wishlist" signs in first and comes back to the product', async () => {
    await page.goto(`${shop}/products/${apronSlug}`);
    await page.getByRole('button', { name: 'Save to wishlist' }).click();
    await heading('Sign in').waitFor();
    expect(new URL(page.url()).searchParams.get('return')).toBe(`/products/${apronSlug}`);
    const before = smtp.messages.length;
    await page.getByLabel('E-mail address').fill(EMAIL);
    await page.getByLabel('E-mail address').press('Enter');
    await heading('Check your e-mail').waitFor();
    await page.keyboard.type(await codeFor(EMAIL, before));
    await page.keyboard.press('Enter');
    await page.waitForURL(`${shop}/products/${apronSlug}`);
    await page.getByRole('button', { name: 'Save to wishlist' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved to your wishlist.' }).waitFor();
    expect(pageErrors).toEqual([]);
  });
});
