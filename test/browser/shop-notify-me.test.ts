import { chromium } from 'playwright-core';
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
import { freePort } from '../helpers/processes.js';
import { CHROMIUM, hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * "Email me when it's back" on a sold-out product page, in Chromium at 390 and 1280 px: the form is
 * found by its label, a refusal comes back beside the field, the confirmation follows a sign-up;
 * every page photographed is audited with axe-core. And the same form with JavaScript switched off.
 */
describe.skipIf(!hasChromium())('notify me when it is back, in Chromium', () => {
  let app: TestApp;
  let api: Client;
  let base: string;
  let shop: string;
  let mug: ProductData;
  let shirt: ProductData;
  const browsers: LaunchedBrowser[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ config: { ...UNLIMITED, publicUrl: base } });
    await app.server.listen({ port, host: '127.0.0.1' });
    const made = await createStoreWithKey(app, { slug: `notify-${port}` });
    shop = `${base}/shop/${made.store.slug}`;
    api = client(app, made.key);
    await app.services.stores.updateSettings(made.store.id, {
      name: 'Harbour Goods',
      colors: { primary: '#0f3d3e', accent: '#0b6e4f' },
    });
    mug = await createProduct(api, {
      name: 'Stoneware Mug',
      price: '18.00',
      inventory: 0,
      description: 'Glazed by hand; every one is a little different.',
    });
    shirt = await createProduct(api, {
      name: 'Linen Shirt',
      price: '48.00',
      options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
      variants: [
        { options: { Size: 'S' }, inventory: 5 },
        { options: { Size: 'M' }, inventory: 0 },
        { options: { Size: 'L' }, inventory: 0 },
      ],
    });
  });

  afterAll(async () => {
    for (const browser of browsers) await browser.close();
    await app?.close();
  });

  const subscriptionsOf = (productId: string) =>
    app.database.db
      .selectFrom('back_in_stock_subscriptions')
      .selectAll()
      .where('product_id', '=', productId)
      .execute();

  for (const width of [1280, 390]) {
    it(`signs up on a sold-out product at ${width} px: refusal beside the field, then the confirmation`, async () => {
      const browser = await launchBrowser({ width, height: 900 });
      browsers.push(browser);
      const { page } = browser;
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${shop}/products/${mug.slug}`);
      await page.getByRole('heading', { level: 1, name: 'Stoneware Mug' }).waitFor();
      const form = page.getByRole('form', { name: "Email me when it's back" });
      await form.waitFor();
      await screenshot(page, `shop-notify-me-${width}`);

      // Valid for the browser's own check (type=email), not for the shop: the server refuses it.
      const field = form.getByLabel('E-mail address');
      await field.fill('ada@localhost');
      await form.getByRole('button', { name: "Email me when it's back" }).click();
      const error = page.getByRole('alert');
      await error.waitFor();
      expect(await error.textContent()).toContain('Enter a valid e-mail address');
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await field.inputValue()).toBe('ada@localhost');
      expect(await page.evaluate<boolean>("document.activeElement?.getAttribute('type') === 'email'")).toBe(
        true,
      );
      await screenshot(page, `shop-notify-me-error-${width}`);

      const email = `ada.${width}@example.com`;
      await page
        .getByRole('form', { name: "Email me when it's back" })
        .getByLabel('E-mail address')
        .fill(email);
      await page.getByRole('button', { name: "Email me when it's back" }).click();
      await page.getByRole('heading', { level: 1, name: "You're on the list" }).waitFor();
      expect(await page.getByRole('status').textContent()).toBe("We'll email you when it's back in stock.");
      await screenshot(page, `shop-notify-me-sent-${width}`);
      expect((await subscriptionsOf(mug.id)).map((s) => s.email)).toContain(email);

      // Back on the product: the sold-out variant the shopper chooses is the one signed up for.
      await page.getByRole('link', { name: 'Back to Stoneware Mug' }).click();
      await page.getByRole('heading', { level: 1, name: 'Stoneware Mug' }).waitFor();
      await page.goto(`${shop}/products/${shirt.slug}`);
      const shirtForm = page.getByRole('form', { name: "Email me when it's back" });
      const size = shirtForm.getByLabel('Notify me about');
      expect(await size.locator('option').allTextContents()).toEqual(['M', 'L']);
      await size.selectOption({ label: 'L' });
      await shirtForm.getByLabel('E-mail address').fill(email);
      await screenshot(page, `shop-notify-me-variant-${width}`);
      await shirtForm.getByRole('button', { name: "Email me when it's back" }).click();
      await page.getByRole('heading', { level: 1, name: "You're on the list" }).waitFor();
      expect(await page.getByText('Linen Shirt (L)').count()).toBe(1);
      const large = shirt.variants.find((v) => v.options.Size === 'L')?.id;
      expect((await subscriptionsOf(shirt.id)).find((s) => s.email === email)?.variant_id).toBe(large);
      expect(errors).toEqual([]);
    });
  }

  it('works with JavaScript switched off', async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking'],
    });
    try {
      const context = await browser.newContext({
        javaScriptEnabled: false,
        viewport: { width: 390, height: 900 },
      });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto(`${shop}/products/${mug.slug}`);
      const form = page.getByRole('form', { name: "Email me when it's back" });
      await form.getByLabel('E-mail address').fill('noscript@example.com');
      await form.getByRole('button', { name: "Email me when it's back" }).click();
      await page.getByRole('heading', { level: 1, name: "You're on the list" }).waitFor();
      // Without script the audit would hang (chromium.ts); the pages are audited above.
      await screenshot(page, 'shop-notify-me-nojs-390', { audit: false });
      expect((await subscriptionsOf(mug.id)).map((s) => s.email)).toContain('noscript@example.com');
    } finally {
      await browser.close();
    }
  });
});
