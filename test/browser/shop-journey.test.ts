import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  type ProductData,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { serveBytes, solidPng, startTestHost, type TestHost } from '../helpers/image-host.js';
import { setPricing } from '../helpers/order-factories.js';
import { freePort } from '../helpers/processes.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * A shopper's whole journey through a store's web shop (contract §10) in Debian's Chromium, against
 * a real server on a port: home → search → product → the option picker's variant → two items in
 * the cart → a coupon → checkout with the test card (declined once, then paid) → confirmation; the
 * order, its totals and the stock checked through the merchant API. Done at 1280 px and at 390 px
 * with the pointer (a screenshot of every page, each checked by axe-core), and once by keyboard only.
 * Each journey is a few dozen page loads and axe runs: its time limit is three minutes.
 */
describe.skipIf(!hasChromium())('shop journey in Chromium', () => {
  let app: TestApp;
  let api: Client;
  let base: string;
  let slug: string;
  let images: TestHost;
  let shirt: ProductData;
  let mug: ProductData;
  const browsers: LaunchedBrowser[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const made = await createStoreWithKey(app, { slug: `harbor-${port}` });
    slug = made.store.slug;
    api = client(app, made.key);
    await app.services.stores.updateSettings(made.store.id, {
      name: 'Harbor Goods',
      colors: { primary: '#0f3d3e', accent: '#0b6e4f' },
    });
    await setPricing(app, made.store.id, { shipping_flat_rate: 500, tax_rate_bps: 800 });
    images = await startTestHost({
      '/shirt.png': serveBytes(await solidPng(800, 800, { r: 96, g: 125, b: 139 }), 'image/png'),
      '/mug.png': serveBytes(await solidPng(800, 800, { r: 214, g: 140, b: 69 }), 'image/png'),
    });
    shirt = await createProduct(api, {
      name: 'Linen Shirt',
      description: 'A loose shirt of washed linen.\n\nCool on warm days.',
      price: '40.00',
      images: [{ url: images.url('/shirt.png'), alt: 'Linen shirt' }],
      options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
      variants: [
        { options: { Size: 'S' }, inventory: 10 },
        { options: { Size: 'M' }, inventory: 0 },
        { options: { Size: 'L' }, inventory: 10, price: '42.00' },
      ],
    });
    mug = await createProduct(api, {
      name: 'Enamel Mug',
      description: 'Holds 350 ml.',
      price: '12.50',
      inventory: 50,
      images: [{ url: images.url('/mug.png'), alt: 'Enamel mug' }],
    });
    const coupon = await api.post('/api/v1/discounts', {
      code: 'WELCOME10',
      type: 'percentage',
      value: '10',
    });
    expect(coupon.statusCode, coupon.body).toBe(201);
  });

  afterAll(async () => {
    for (const b of browsers) await b.close();
    await images?.close();
    await app?.close();
  });

  const variantId = (size: string) => shirt.variants.find((v) => v.options.Size === size)?.id ?? '';
  const stockOf = async (id: string, type: 'product' | 'variant') =>
    (await api.get(`/api/v1/inventory/${id}?type=${type}`)).json().data.inventory as number;

  async function open(width: number) {
    const browser = await launchBrowser({ width, height: 900 });
    browsers.push(browser);
    const errors: string[] = [];
    browser.page.on('pageerror', (error) => errors.push(error.message));
    return { page: browser.page, errors };
  }

  const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });

  /** The order the merchant API holds for this buyer, with the stock it left. */
  async function orderOf(email: string) {
    const list = (await api.get('/api/v1/orders?limit=100')).json().data as {
      id: string;
      customer: { email: string };
    }[];
    const mine = list.filter((o) => o.customer.email === email);
    expect(mine).toHaveLength(1);
    return (await api.get(`/api/v1/orders/${mine[0]?.id}`)).json().data as {
      order_number: number;
      status: string;
      payment_status: string;
      subtotal: number;
      discount_amount: number;
      shipping_amount: number;
      tax_amount: number;
      total: number;
      coupon_code: string | null;
      shipping_address: { line1: string; city: string; country: string };
      line_items: { product_id: string; variant_id: string | null; quantity: number; price: number }[];
    };
  }

  /**
   * One journey with the pointer at `width`: every page is photographed (and audited) as
   * shop-{width}-NN-name.png. Buys 1 shirt in L and 2 mugs with WELCOME10, pays with tok_visa.
   */
  async function pointerJourney(width: number, email: string) {
    const { page, errors } = await open(width);
    const shot = (n: string, name: string) => screenshot(page, `shop-${width}-${n}-${name}`);
    const before = { l: await stockOf(variantId('L'), 'variant'), mug: await stockOf(mug.id, 'product') };

    await page.goto(`${base}/shop/${slug}/`);
    await heading(page, 'Harbor Goods').waitFor();
    await shot('01', 'home');

    await page.getByLabel('Search products').fill('linen');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/\/products\?q=linen/);
    await shot('02', 'search');
    await page.getByRole('main').getByRole('link', { name: 'Linen Shirt' }).first().click();
    await heading(page, 'Linen Shirt').waitFor();
    await shot('03', 'product');

    // The option picker: the sold-out size cannot be added.
    const picker = page.locator('select[name="variantId"]');
    await picker.selectOption(variantId('M'));
    const add = page.getByRole('button', { name: /Add to cart|Sold out/ });
    await expect.poll(() => add.isDisabled()).toBe(true);
    await shot('04', 'product-sold-out');
    await picker.selectOption(variantId('L'));
    await expect.poll(() => add.isEnabled()).toBe(true);
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await heading(page, 'Your cart').waitFor();
    await page.getByText('Linen Shirt').first().waitFor();

    await page.getByRole('navigation', { name: 'Shop' }).getByRole('link', { name: 'Products' }).click();
    await page.getByRole('main').getByRole('link', { name: 'Enamel Mug' }).first().click();
    await heading(page, 'Enamel Mug').waitFor();
    await page.getByLabel('Quantity').fill('2');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await heading(page, 'Your cart').waitFor();
    await page.getByText('3 items').waitFor();
    await shot('05', 'cart');

    await page.getByLabel('Coupon code').fill('NOTACODE');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('alert').filter({ hasText: 'This code cannot be used' }).waitFor();
    await shot('06', 'cart-coupon-refused');
    await page.getByLabel('Coupon code').fill('WELCOME10');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Coupon WELCOME10 applied.').waitFor();
    await shot('07', 'cart-coupon');

    await page.getByRole('link', { name: 'Checkout' }).click();
    await heading(page, 'Checkout').waitFor();
    await shot('08', 'checkout-details');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('alert').filter({ hasText: 'Please check the highlighted fields' }).waitFor();
    await shot('09', 'checkout-details-errors');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('Address', { exact: true }).fill('12 Analytical Row');
    await page.getByLabel('City').fill('London');
    await page.getByLabel('Postal code').fill('N1 9GU');
    await page.getByLabel('Country').selectOption('GB');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('group', { name: 'Payment method' }).waitFor();
    await shot('10', 'checkout-payment');

    await page.getByLabel('Test card to use').selectOption('tok_decline');
    await page.getByRole('button', { name: /^Place order/ }).click();
    await page.getByRole('alert').filter({ hasText: 'Your card was declined' }).waitFor();
    await shot('11', 'checkout-declined');
    await page.getByLabel('Test card to use').selectOption('tok_visa');
    await page.getByRole('button', { name: /^Place order/ }).click();
    await heading(page, 'Thank you for your order').waitFor();
    await page.getByText('Payment received.').waitFor();
    await shot('12', 'confirmation');

    // 42.00 + 2 × 12.50 = 67.00; −10 % = 6.70; shipping 5.00; tax 8 % of 60.30 = 4.82.
    const order = await orderOf(email);
    expect(order).toMatchObject({
      status: 'processing',
      payment_status: 'paid',
      subtotal: 67,
      discount_amount: 6.7,
      shipping_amount: 5,
      tax_amount: 4.82,
      total: 70.12,
      coupon_code: 'WELCOME10',
      shipping_address: { line1: '12 Analytical Row', city: 'London', country: 'GB' },
    });
    expect(order.line_items.map((l) => [l.variant_id ?? l.product_id, l.quantity, l.price])).toEqual([
      [variantId('L'), 1, 42],
      [mug.id, 2, 12.5],
    ]);
    expect(await page.getByText(`Order #${order.order_number}`).count()).toBeGreaterThan(0);
    expect(await stockOf(variantId('L'), 'variant')).toBe(before.l - 1);
    expect(await stockOf(mug.id, 'product')).toBe(before.mug - 2);
    expect(await stockOf(variantId('M'), 'variant')).toBe(0);
    expect(errors).toEqual([]);
  }

  it('at 1280 px: browse, search, pick a variant, two items, a coupon, a declined then a paid test card', async () => {
    await pointerJourney(1280, 'ada.desktop@example.com');
  }, 180_000);

  it('the same journey at 390 px wide', async () => {
    await pointerJourney(390, 'ada.phone@example.com');
  }, 180_000);

  /** Presses Tab until `target` has the focus (it must be reachable by keyboard). */
  async function tabTo(page: Page, target: Locator, limit = 120) {
    for (let i = 0; i < limit; i++) {
      await page.keyboard.press('Tab');
      const focused = await target
        .evaluate((el) => (el as unknown as { matches(selector: string): boolean }).matches(':focus'))
        .catch(() => false);
      if (focused) return;
    }
    throw new Error(`could not reach ${target} with Tab`);
  }

  /** Arrow keys on a focused <select> until it shows `value`. */
  async function arrowTo(page: Page, select: Locator, value: string) {
    for (let i = 0; i < 300 && (await select.inputValue()) !== value; i++)
      await page.keyboard.press('ArrowDown');
    expect(await select.inputValue()).toBe(value);
  }

  it('the whole journey by keyboard only (Tab, Enter, Space, arrows): no pointer', async () => {
    const { page, errors } = await open(1280);
    const email = 'ada.keys@example.com';
    await page.goto(`${base}/shop/${slug}/`);
    await heading(page, 'Harbor Goods').waitFor();

    // The skip link comes first and is visible when focused.
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Skip to content');

    await tabTo(page, page.getByLabel('Search products'));
    await page.keyboard.type('shirt');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/products\?q=shirt/);
    await tabTo(page, page.getByRole('main').getByRole('link', { name: 'Linen Shirt' }).first());
    await page.keyboard.press('Enter');
    await heading(page, 'Linen Shirt').waitFor();

    const picker = page.locator('select[name="variantId"]');
    await tabTo(page, picker);
    // The sold-out size, picked with the arrows, cannot be added.
    await arrowTo(page, picker, variantId('M'));
    await expect.poll(() => page.locator('[data-add-to-cart]').isDisabled()).toBe(true);
    await page.keyboard.press('ArrowUp');
    expect(await picker.inputValue()).toBe(variantId('S'));
    await tabTo(page, page.getByRole('button', { name: 'Add to cart' }));
    await page.keyboard.press('Enter');
    await heading(page, 'Your cart').waitFor();

    // A second unit of the same line, with the quantity field and Enter.
    const quantity = page.getByRole('spinbutton', { name: /Quantity/ });
    await tabTo(page, quantity);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.getByText('2 items').waitFor();

    await tabTo(page, page.getByLabel('Coupon code'));
    await page.keyboard.type('WELCOME10');
    await tabTo(page, page.getByRole('button', { name: 'Apply' }));
    await page.keyboard.press('Space');
    await page.getByText('Coupon WELCOME10 applied.').waitFor();
    await tabTo(page, page.getByRole('link', { name: 'Checkout' }));
    await page.keyboard.press('Enter');
    await heading(page, 'Checkout').waitFor();

    const typeInto = async (label: string, text: string) => {
      await tabTo(page, page.getByLabel(label, { exact: true }));
      await page.keyboard.type(text);
    };
    await typeInto('E-mail', email);
    await typeInto('First name', 'Ada');
    await typeInto('Last name', 'Lovelace');
    await typeInto('Address', '12 Analytical Row');
    await typeInto('City', 'London');
    await typeInto('Postal code', 'N1 9GU');
    // A closed <select> takes type-ahead, as it does for a sighted keyboard user.
    const country = page.getByLabel('Country');
    await tabTo(page, country);
    await page.keyboard.type('United Kingdom');
    expect(await country.inputValue()).toBe('GB');
    await tabTo(page, page.getByRole('button', { name: 'Continue to payment' }));
    await page.keyboard.press('Enter');
    await page.getByRole('group', { name: 'Payment method' }).waitFor();

    await tabTo(page, page.getByRole('radio', { name: 'Test card' }));
    await page.keyboard.press('Space');
    await tabTo(page, page.getByRole('button', { name: /^Place order/ }));
    await page.keyboard.press('Enter');
    await heading(page, 'Thank you for your order').waitFor();
    await screenshot(page, 'shop-keyboard-confirmation');

    // 2 × 40.00 = 80.00; −8.00; shipping 5.00; tax 8 % of 72.00 = 5.76.
    const order = await orderOf(email);
    expect(order).toMatchObject({
      payment_status: 'paid',
      subtotal: 80,
      discount_amount: 8,
      tax_amount: 5.76,
      total: 82.76,
    });
    expect(order.line_items.map((l) => [l.variant_id, l.quantity])).toEqual([[variantId('S'), 2]]);
    expect(errors).toEqual([]);
  }, 180_000);
});
