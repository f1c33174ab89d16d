import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createCategory,
  createProduct,
  type ProductData,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { setPricing } from '../helpers/order-factories.js';
import { freePort } from '../helpers/processes.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';
import { CHROMIUM, hasChromium, screenshot } from './chromium.js';

/**
 * The README's promise that the shop works without JavaScript (contract §10: pages work from their
 * HTML, scripts only enhance), in Chromium with script execution switched off: home → category →
 * search → sort → next page → product → a variant from the server-rendered picker → cart →
 * quantity → coupon → checkout with the test card → confirmation, then sign-in with the one-time
 * code from a real SMTP capture and the order in the account. Every step is a plain link or form.
 */
describe.skipIf(!hasChromium())('shop without JavaScript in Chromium', () => {
  const EMAIL = 'noscript@shopper.test';
  let app: TestApp;
  let smtp: SmtpCatcher;
  let api: Client;
  let base: string;
  let shop: string;
  let shirt: ProductData;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    smtp = await startSmtpCatcher();
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base, smtpUrl: smtp.url } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const made = await createStoreWithKey(app, { slug: `nojs-${port}` });
    shop = `${base}/shop/${made.store.slug}`;
    api = client(app, made.key);
    await app.services.stores.updateSettings(made.store.id, {
      name: 'Quiet Goods',
      colors: { primary: '#0f3d3e', accent: '#0b6e4f' },
    });
    await setPricing(app, made.store.id, { shipping_flat_rate: 500, tax_rate_bps: 800 });
    const linen = await createCategory(api, { name: 'Linen' });
    const kitchen = await createCategory(api, { name: 'Kitchen' });
    // 26 towels + the shirt: two pages of 24 in the Linen category; the shirt, dearest, ends on page 2.
    for (let i = 1; i <= 26; i++)
      await createProduct(api, {
        name: `Linen Towel ${String(i).padStart(2, '0')}`,
        price: `${(5 + i).toFixed(2)}`,
        inventory: 20,
        category_ids: [linen.id],
      });
    await createProduct(api, {
      name: 'Enamel Mug',
      price: '12.50',
      inventory: 20,
      category_ids: [kitchen.id],
    });
    shirt = await createProduct(api, {
      name: 'Linen Shirt',
      price: '40.00',
      category_ids: [linen.id],
      options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
      variants: [
        { options: { Size: 'S' }, inventory: 10 },
        { options: { Size: 'M' }, inventory: 0 },
        { options: { Size: 'L' }, inventory: 10, price: '42.00' },
      ],
    });
    const coupon = await api.post('/api/v1/discounts', {
      code: 'WELCOME10',
      type: 'percentage',
      value: '10',
    });
    expect(coupon.statusCode, coupon.body).toBe(201);

    // A plain (non-persistent) context: launchBrowser() has no switch for script execution.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking'],
    });
    context = await browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await app?.close();
    await smtp?.close();
  });

  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const variantId = (size: string) => shirt.variants.find((v) => v.options.Size === size)?.id ?? '';
  /**
   * Photographed without the axe-core audit: chromium.ts injects axe through the DevTools protocol,
   * which still evaluates, but axe.run() waits on timers and page timers never fire with script
   * execution off, so the audit would hang. The JS-enabled tests (shop-journey, shop-catalog,
   * shop-account) audit these same pages.
   */
  const shot = (name: string) => screenshot(page, `shop-nojs-${name}`, { audit: false });

  it('browses, searches, sorts, pages, buys with the test card and sees the order in the account', async () => {
    // The switch is really off: the shop's script (which marks <html class="js">) is served but never runs.
    await page.goto(`${shop}/`);
    await heading('Quiet Goods').waitFor();
    expect(await page.locator('script[src]').count()).toBeGreaterThan(0);
    expect(await page.locator('html.js').count()).toBe(0);
    await shot('01-home');

    await page
      .getByRole('link', { name: /^Linen/ })
      .first()
      .click();
    await page.waitForURL(/category=linen/);
    await heading(/Linen/).waitFor();
    await shot('02-category');

    // The list's own GET form: search inside the category, then sort by price.
    await page.getByLabel('Search', { exact: true }).fill('linen');
    await page.getByLabel('Sort by').selectOption('price_asc');
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.waitForURL(
      (url) => url.searchParams.get('q') === 'linen' && url.searchParams.get('sort') === 'price_asc',
    );
    expect(new URL(page.url()).searchParams.get('category')).toBe('linen');
    const names = page.getByRole('main').locator('.product-card__name');
    expect(await names.first().textContent()).toContain('Linen Towel 01');
    await shot('03-search-sorted');

    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: /Next/ }).click();
    await page.waitForURL((url) => url.searchParams.get('page') === '2');
    expect(new URL(page.url()).searchParams.get('sort')).toBe('price_asc');
    await shot('04-page-2');

    await page.getByRole('main').getByRole('link', { name: 'Linen Shirt' }).first().click();
    await heading('Linen Shirt').waitFor();
    await shot('05-product');

    // The server-rendered picker: choosing L only changes the form's value; the server takes it.
    await page.getByLabel('Size').selectOption(variantId('L'));
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await heading('Your cart').waitFor();
    await page.getByText('Linen Shirt').first().waitFor();
    await page.getByText('1 item', { exact: false }).first().waitFor();

    await page.getByRole('spinbutton', { name: /Quantity/ }).fill('2');
    await page.getByRole('button', { name: /Update quantity of Linen Shirt/ }).click();
    await page.getByText('2 items').first().waitFor();
    await page.getByLabel('Coupon code').fill('WELCOME10');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Coupon WELCOME10 applied.').waitFor();
    await shot('06-cart');

    await page.getByRole('link', { name: 'Checkout' }).click();
    await heading('Checkout').waitFor();
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('Address', { exact: true }).fill('12 Analytical Row');
    await page.getByLabel('City').fill('London');
    await page.getByLabel('Postal code').fill('N1 9GU');
    await page.getByLabel('Country').selectOption('GB');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('group', { name: 'Payment method' }).waitFor();
    await page.getByRole('radio', { name: 'Test card' }).check();
    await page.getByLabel('Test card to use').selectOption('tok_visa');
    await shot('07-checkout-payment');
    await page.getByRole('button', { name: /^Place order/ }).click();
    await heading('Thank you for your order').waitFor();
    await page.getByText('Payment received.').waitFor();
    await shot('08-confirmation');

    // 2 × 42.00 = 84.00; −8.40; shipping 5.00; tax 8 % of 75.60 = 6.05.
    const list = (await api.get('/api/v1/orders?limit=100')).json().data as {
      id: string;
      customer: { email: string };
    }[];
    const mine = list.filter((o) => o.customer.email === EMAIL);
    expect(mine).toHaveLength(1);
    const order = (await api.get(`/api/v1/orders/${mine[0]?.id}`)).json().data;
    expect(order).toMatchObject({
      payment_status: 'paid',
      subtotal: 84,
      discount_amount: 8.4,
      shipping_amount: 5,
      tax_amount: 6.05,
      total: 86.65,
      coupon_code: 'WELCOME10',
    });
    expect(
      order.line_items.map((l: { variant_id: string; quantity: number }) => [l.variant_id, l.quantity]),
    ).toEqual([[variantId('L'), 2]]);

    // Sign in with the one-time code that arrived by e-mail; the order is in the account.
    await page.getByRole('navigation', { name: 'Shop' }).getByRole('link', { name: 'Account' }).click();
    await heading('Sign in').waitFor();
    const before = smtp.messages.length;
    await page.getByLabel('E-mail address').fill(EMAIL);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await heading('Check your e-mail').waitFor();
    const mail = await smtp.waitFor(
      (m) => smtp.messages.indexOf(m) >= before && (m.to ?? '').includes(EMAIL),
    );
    const code = mail.text.match(/\b(\d{6})\b/)?.[1] ?? '';
    expect(code).toMatch(/^\d{6}$/);
    await page.getByLabel('6-digit code').fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(/^(Your account|Hello, .+)$/).waitFor();
    const row = page.getByRole('link', { name: `Order #${order.order_number}` });
    await row.waitFor();
    await shot('09-account');
    await row.click();
    await heading(`Order #${order.order_number}`).waitFor();
    await page.getByText('Linen Shirt').first().waitFor();
    await shot('10-account-order');
  }, 120_000);
});
