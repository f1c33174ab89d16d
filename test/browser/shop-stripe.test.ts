import type { Page } from 'playwright-core';
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
import {
  type FakeStripe,
  signStripeEvent,
  startFakeStripe,
  stripeEvent,
  stripeKeys,
} from '../helpers/fake-stripe.js';
import { freePort } from '../helpers/processes.js';
import { hasChromium, type LaunchedBrowser, launchBrowser, screenshot } from './chromium.js';

/**
 * Stripe's Payment Element in the shop (contract §10), in Chromium: the checkout places the order
 * with `stripe`, the pay page's island loads https://js.stripe.com/v3 and mounts the Payment Element
 * with the order's client secret and the store's publishable key, and Stripe sends the buyer back
 * to the confirmation, which shows the order paid once Stripe's webhook says so. Stripe's API is the
 * local fake (test/helpers/fake-stripe.ts); Stripe.js, which the test machine cannot download, is
 * a small stand-in served at its real address that speaks the same calls (Stripe(), elements(),
 * create('payment').mount(), confirmPayment()).
 */
const FAKE_STRIPE_JS = `
window.Stripe = function (publishableKey) {
  window.__stripeSeen = { publishableKey: publishableKey };
  return {
    elements: function (options) {
      window.__stripeSeen.clientSecret = options.clientSecret;
      return {
        create: function () {
          var ready;
          return {
            on: function (event, handler) { if (event === 'ready') ready = handler; },
            mount: function (selector) {
              var host = document.querySelector(selector);
              var label = document.createElement('label');
              label.textContent = 'Card number';
              var input = document.createElement('input');
              input.id = 'fake-card-number';
              label.htmlFor = input.id;
              host.append(label, input);
              setTimeout(function () { if (ready) ready(); }, 0);
            },
          };
        },
      };
    },
    confirmPayment: function (options) {
      if (document.getElementById('fake-card-number').value !== '4242424242424242')
        return Promise.resolve({ error: { message: 'Your card number is invalid.' } });
      var secret = window.__stripeSeen.clientSecret;
      location.href = options.confirmParams.return_url + '?payment_intent=' + secret.split('_secret_')[0] +
        '&payment_intent_client_secret=' + secret + '&redirect_status=succeeded';
      return new Promise(function () {});
    },
  };
};`;

describe.skipIf(!hasChromium())('shop checkout with Stripe in Chromium', () => {
  let app: TestApp;
  let stripe: FakeStripe;
  let api: Client;
  let base: string;
  let slug: string;
  let keys: ReturnType<typeof stripeKeys>;
  let scarf: ProductData;
  const browsers: LaunchedBrowser[] = [];

  beforeAll(async () => {
    stripe = await startFakeStripe();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({
      config: { ...UNLIMITED, publicUrl: base, stripe: { apiBase: stripe.url, timeoutMs: 2000 } },
    });
    await app.server.listen({ port, host: '127.0.0.1' });
    const made = await createStoreWithKey(app, { slug: `scarves-${port}` });
    slug = made.store.slug;
    api = client(app, made.key);
    await app.services.stores.updateSettings(made.store.id, { name: 'Scarf Studio' });
    keys = stripeKeys();
    stripe.allowKey(keys.secret_key);
    expect((await api.put('/api/v1/payments/stripe', keys)).statusCode).toBe(200);
    scarf = await createProduct(api, { name: 'Wool Scarf', price: '25.00', inventory: 10 });
  });
  afterAll(async () => {
    for (const b of browsers) await b.close();
    await app?.close();
    await stripe?.close();
  });

  async function payingBrowser(width: number) {
    const browser = await launchBrowser({ width, height: 900 });
    browsers.push(browser);
    await browser.context.route('https://js.stripe.com/v3', (route) =>
      route.fulfill({ status: 200, contentType: 'text/javascript', body: FAKE_STRIPE_JS }),
    );
    return browser.page;
  }

  /** A cart with one scarf, from its product page. */
  async function fillCart(page: Page) {
    await page.goto(`${base}/shop/${slug}/products/${scarf.slug}`);
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your cart' }).waitFor();
  }

  for (const width of [1280, 390]) {
    it(`at ${width} px: places the order, pays in the Payment Element, comes back to a paid confirmation`, async () => {
      const page = await payingBrowser(width);
      const email = `card.${width}@example.com`;
      await fillCart(page);
      await page.goto(`${base}/shop/${slug}/checkout`);
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('First name').fill('Ada');
      await page.getByLabel('Last name').fill('Lovelace');
      await page.getByLabel('Address', { exact: true }).fill('12 Analytical Row');
      await page.getByLabel('City').fill('London');
      await page.getByLabel('Postal code').fill('N1 9GU');
      await page.getByLabel('Country').selectOption('GB');
      await page.getByRole('button', { name: 'Continue to payment' }).click();
      await page.getByRole('radio', { name: 'Card', exact: true }).check();
      await screenshot(page, `shop-${width}-stripe-01-checkout`);
      await page.getByRole('button', { name: /^Place order/ }).click();

      await page.getByRole('heading', { level: 1, name: 'Pay $25.00' }).waitFor();
      await page.getByLabel('Card number').waitFor();
      const seen = await page.evaluate(
        () => (globalThis as unknown as { __stripeSeen: object }).__stripeSeen,
      );
      const intent = [...stripe.intents.values()].find(
        (pi) => pi.metadata.order_id && pi.client_secret === (seen as { clientSecret: string }).clientSecret,
      );
      expect(seen).toEqual({ publishableKey: keys.publishable_key, clientSecret: intent?.client_secret });
      expect(intent?.amount).toBe(2500);
      await screenshot(page, `shop-${width}-stripe-02-pay`);

      await page.getByLabel('Card number').fill('1234');
      await page.getByRole('button', { name: 'Pay $25.00' }).click();
      await page.getByRole('alert').filter({ hasText: 'Your card number is invalid.' }).waitFor();
      await page.getByLabel('Card number').fill('4242424242424242');
      await page.getByRole('button', { name: 'Pay $25.00' }).click();
      await page.getByText('Your card payment is being confirmed by Stripe.').waitFor();
      expect(page.url()).toMatch(/\/orders\/\d+\/confirmation\?payment_intent=.+&redirect_status=succeeded$/);
      await screenshot(page, `shop-${width}-stripe-03-confirming`);

      // Stripe's webhook: the PaymentIntent succeeded.
      const payload = stripeEvent('payment_intent.succeeded', stripe.succeed(intent?.id ?? ''));
      const hook = await app.server.inject({
        method: 'POST',
        url: `/api/payments/stripe/${slug}/webhook`,
        headers: {
          'content-type': 'application/json',
          'stripe-signature': signStripeEvent(payload, keys.webhook_secret),
        },
        payload,
      });
      expect(hook.statusCode, hook.body).toBe(200);
      await page.reload();
      await page.getByText('Payment received.').waitFor();
      await screenshot(page, `shop-${width}-stripe-04-paid`);
      const orders = (await api.get('/api/v1/orders?limit=100')).json().data as {
        customer: { email: string };
        payment_status: string;
        total: number;
      }[];
      expect(orders.filter((o) => o.customer.email === email)).toMatchObject([
        { payment_status: 'paid', total: 25 },
      ]);
    }, 180_000);
  }
});
