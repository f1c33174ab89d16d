import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  type Client,
  client,
  createProduct,
  type ProductData,
  sizedProduct,
  UNLIMITED,
} from '../helpers/catalog-factories.js';
import { createStoreWithKey } from '../helpers/factories.js';
import { type FakeStripe, startFakeStripe, stripeKeys } from '../helpers/fake-stripe.js';
import { setPricing } from '../helpers/order-factories.js';
import { SHOP_ORIGIN, type ShopBrowser, shopBrowser, textOf } from '../helpers/shop-client.js';

/**
 * The shop's cart, checkout and confirmation (contract §10) over HTTP, as a browser without
 * JavaScript uses them: form posts answered with redirects, a cart cookie per shop, and the effects
 * checked through the merchant API.
 */
let app: TestApp;
let stripe: FakeStripe;
let api: Client;
let slug: string;
let storeId: string;
let mug: ProductData;
let shirt: ProductData;
let draft: ProductData;

const ADDRESS = {
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  phone: '',
  line1: '12 Analytical Row',
  line2: '',
  city: 'London',
  region: '',
  postalCode: 'N1 9GU',
  country: 'GB',
};

beforeAll(async () => {
  stripe = await startFakeStripe();
  app = await buildTestApp({
    config: { ...UNLIMITED, publicUrl: SHOP_ORIGIN, stripe: { apiBase: stripe.url, timeoutMs: 2000 } },
  });
  const made = await createStoreWithKey(app);
  slug = made.store.slug;
  storeId = made.store.id;
  api = client(app, made.key);
  await setPricing(app, storeId, { shipping_flat_rate: 500, tax_rate_bps: 1000 });
  mug = await createProduct(api, { name: 'Enamel Mug', price: '12.50', inventory: 5 });
  shirt = await createProduct(api, sizedProduct({ S: 3, M: 0, L: 2 }, { name: 'Linen Shirt' }));
  draft = await createProduct(api, { name: 'Secret Mug', status: 'draft', inventory: 5 });
  const coupon = await api.post('/api/v1/discounts', { code: 'TENOFF', type: 'percentage', value: '10' });
  expect(coupon.statusCode, coupon.body).toBe(201);
});
afterAll(async () => {
  await app?.close();
  await stripe?.close();
});

const shopPath = (path: string, s = slug) => `/shop/${s}${path}`;
const variant = (size: string) => shirt.variants.find((v) => v.options.Size === size)?.id ?? '';
const stockOf = async (id: string, type: 'product' | 'variant' = 'product') =>
  (await api.get(`/api/v1/inventory/${id}?type=${type}`)).json().data.inventory as number;
const ordersOf = async (email: string) =>
  ((await api.get('/api/v1/orders?limit=100')).json().data as { customer: { email: string } }[]).filter(
    (o) => o.customer.email === email,
  );

async function addToCart(shopper: ShopBrowser, productId: string, quantity = 1, variantId = '') {
  return shopper.post(shopPath('/cart/items'), { productId, variantId, quantity: String(quantity) });
}

/** Line ids of the cart page, from its quantity forms. */
function lineIds(html: string): string[] {
  return [...html.matchAll(/action="\/shop\/[^/]+\/cart\/items\/([^"/]+)"/g)].map((m) => m[1] ?? '');
}

describe('the cart', () => {
  it('starts empty, private and cookie-less', async () => {
    const shopper = shopBrowser(app);
    const res = await shopper.get(shopPath('/cart'));
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(textOf(res.body)).toContain('Your cart is empty.');
    expect(res.body).toContain('<meta name="robots" content="noindex"/>');
  });

  it('adds items with a form post (303 to the cart), in a cookie of this shop only, and shows them priced', async () => {
    const shopper = shopBrowser(app);
    const added = await addToCart(shopper, mug.id, 2);
    expect(added.statusCode).toBe(303);
    expect(added.headers.location).toBe(shopPath('/cart'));
    const cookie = String(added.headers['set-cookie']);
    expect(cookie).toMatch(
      new RegExp(`^emporium_cart=[\\w-]{32}; Path=/shop/${slug}/; HttpOnly; SameSite=Lax; Max-Age=2592000$`),
    );
    expect((await addToCart(shopper, shirt.id, 1, variant('L'))).statusCode).toBe(303);
    // The same product again merges into its line.
    expect((await addToCart(shopper, mug.id, 1)).statusCode).toBe(303);

    const page = await shopper.get(shopPath('/cart'));
    const text = textOf(page.body);
    expect(text).toContain('Enamel Mug');
    expect(text).toContain('Linen Shirt');
    expect(text).toContain('Linen Shirt L $20.00 each');
    expect(text).toContain('4 items');
    expect(text).toContain('$12.50 each');
    expect(text).toContain('Line total: $37.50');
    expect(text).toMatch(/Subtotal \$57\.50 Shipping \$5\.00 Tax \$5\.75 Total \$68\.25/);
    expect(lineIds(page.body)).toHaveLength(2);
    expect(page.body).toContain(`href="/shop/${slug}/checkout"`);
  });

  it('changes a quantity, removes a line with Remove and with quantity 0', async () => {
    const shopper = shopBrowser(app);
    await addToCart(shopper, mug.id, 1);
    await addToCart(shopper, shirt.id, 1, variant('S'));
    const [mugLine, shirtLine] = lineIds((await shopper.get(shopPath('/cart'))).body);
    const changed = await shopper.post(shopPath(`/cart/items/${mugLine}`), { quantity: '3' });
    expect(changed.statusCode).toBe(303);
    expect(textOf((await shopper.get(shopPath('/cart'))).body)).toContain('Line total: $37.50');

    expect((await shopper.post(shopPath(`/cart/items/${shirtLine}/remove`))).statusCode).toBe(303);
    let text = textOf((await shopper.get(shopPath('/cart'))).body);
    expect(text).not.toContain('Linen Shirt');
    expect(text).toContain('3 items');

    expect((await shopper.post(shopPath(`/cart/items/${mugLine}`), { quantity: '0' })).statusCode).toBe(303);
    text = textOf((await shopper.get(shopPath('/cart'))).body);
    expect(text).toContain('Your cart is empty.');

    const silly = await shopper.post(shopPath(`/cart/items/${mugLine}`), { quantity: 'lots' });
    expect(silly.statusCode).toBe(400);
    expect(textOf(silly.body)).toContain('Enter a quantity from 0 to 10,000 (0 removes the item).');
  });

  it('refuses an out-of-stock variant, more than the stock, a draft and a product without its option, saying why', async () => {
    const shopper = shopBrowser(app);
    const soldOut = await addToCart(shopper, shirt.id, 1, variant('M'));
    expect(soldOut.statusCode).toBe(409);
    expect(textOf(soldOut.body)).toContain(
      'Could not add “Linen Shirt (M)” to your cart: it is out of stock.',
    );
    expect(soldOut.body).toContain('role="alert"');
    expect(soldOut.body).toContain(`href="/shop/${slug}/products/${shirt.slug}"`);
    expect(shopper.cookie('emporium_cart')).toBeUndefined();

    await addToCart(shopper, mug.id, 4);
    const tooMany = await addToCart(shopper, mug.id, 2);
    expect(tooMany.statusCode).toBe(409);
    expect(textOf(tooMany.body)).toContain('only 5 left in stock and you already have 4 in your cart.');
    // The cart is drawn with the message, unchanged.
    expect(textOf(tooMany.body)).toContain('4 items');

    const secret = await addToCart(shopper, draft.id, 1);
    expect(secret.statusCode).toBe(400);
    expect(textOf(secret.body)).toContain('Could not add this product to your cart: it is not for sale.');
    const noSize = await addToCart(shopper, shirt.id, 1);
    expect(noSize.statusCode).toBe(400);
    expect(textOf(noSize.body)).toContain('choose its options (such as size or colour) first.');
    const nothing = await shopper.post(shopPath('/cart/items'), { quantity: '1' });
    expect(nothing.statusCode).toBe(400);
    const garbage = await shopper.post(shopPath('/cart/items'), { productId: 'not-an-id', quantity: '1' });
    expect(garbage.statusCode).toBe(400);
    expect(textOf(garbage.body)).toContain('it is not for sale.');
    const wrongVariant = await addToCart(shopper, mug.id, 1, variant('S'));
    expect(wrongVariant.statusCode).toBe(400);
    expect(textOf(wrongVariant.body)).toContain('that option is not available.');
    expect(await stockOf(shirt.variants[1]?.id ?? '', 'variant')).toBe(0);
  });

  it('applies a coupon, says why one does not apply, removes it', async () => {
    const shopper = shopBrowser(app);
    await addToCart(shopper, mug.id, 2);
    const wrong = await shopper.post(shopPath('/cart/coupon'), { code: 'NOPE' });
    expect(wrong.statusCode).toBe(400);
    expect(textOf(wrong.body)).toContain('This code cannot be used: no discount has this code.');
    expect(wrong.body).toMatch(/id="coupon-code"[^>]*aria-invalid="true"/);

    expect((await shopper.post(shopPath('/cart/coupon'), { code: 'TENOFF' })).statusCode).toBe(303);
    let text = textOf((await shopper.get(shopPath('/cart'))).body);
    expect(text).toContain('Coupon TENOFF applied.');
    expect(text).toMatch(
      /Subtotal \$25\.00 Discount \(TENOFF\) −\$2\.50 Shipping \$5\.00 Tax \$2\.25 Total \$29\.75/,
    );

    expect((await shopper.post(shopPath('/cart/coupon/remove'))).statusCode).toBe(303);
    text = textOf((await shopper.get(shopPath('/cart'))).body);
    expect(text).not.toContain('Discount');
    expect(text).toContain('Total $32.50');
  });

  it("ignores another store's cart cookie, and refuses a form from another site", async () => {
    const other = await createStoreWithKey(app);
    const otherApi = client(app, other.key);
    const cup = await createProduct(otherApi, { name: 'Other Cup', inventory: 3 });
    const shopper = shopBrowser(app);
    await addToCart(shopper, mug.id, 1);
    const mine = shopper.cookie('emporium_cart') ?? '';
    // The browser would never send it there (its Path is this shop's); a forged one does nothing.
    shopper.setCookie('emporium_cart', mine, `/shop/${other.store.slug}/`);
    const theirs = await shopper.get(shopPath('/cart', other.store.slug));
    expect(textOf(theirs.body)).toContain('Your cart is empty.');
    expect(
      (await shopper.post(shopPath('/cart/items', other.store.slug), { productId: cup.id, quantity: '1' }))
        .statusCode,
    ).toBe(303);
    expect(textOf((await shopper.get(shopPath('/cart', other.store.slug))).body)).not.toContain('Enamel Mug');
    expect(textOf((await shopper.get(shopPath('/cart'))).body)).not.toContain('Other Cup');

    const forged = await app.server.inject({
      method: 'POST',
      url: shopPath('/cart/items'),
      headers: {
        origin: 'https://evil.example',
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `emporium_cart=${mine}`,
      },
      payload: `productId=${mug.id}&quantity=3`,
    });
    expect(forged.statusCode).toBe(403);
    expect(textOf((await shopper.get(shopPath('/cart'))).body)).toContain('1 item');
  });
});

describe('the cart on a custom domain', () => {
  it('scopes the cookie to / there, and redirects on that domain', async () => {
    const domain = `cart-${slug}.example.com`;
    await app.services.stores.updateSettings(storeId, { custom_domain: domain });
    try {
      const send = (
        method: 'GET' | 'POST',
        url: string,
        headers: Record<string, string> = {},
        payload?: string,
      ) => app.server.inject({ method, url, headers: { host: domain, ...headers }, payload });
      const added = await send(
        'POST',
        '/cart/items',
        { origin: `http://${domain}`, 'content-type': 'application/x-www-form-urlencoded' },
        `productId=${mug.id}&quantity=1`,
      );
      expect(added.statusCode, added.body).toBe(303);
      expect(added.headers.location).toBe('/cart');
      const cookie = String(added.headers['set-cookie']);
      expect(cookie).toMatch(/^emporium_cart=[\w-]{32}; Path=\/; HttpOnly; SameSite=Lax/);
      const cart = await send('GET', '/cart', { cookie: cookie.split(';')[0] ?? '' });
      expect(textOf(cart.body)).toContain('Enamel Mug');
      expect(cart.body).toContain('href="/checkout"');
    } finally {
      await app.services.stores.updateSettings(storeId, { custom_domain: null });
    }
  });
});

describe('checkout', () => {
  it('sends an empty cart back to the cart page', async () => {
    const res = await shopBrowser(app).get(shopPath('/checkout'));
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(shopPath('/cart'));
  });

  it('asks for the details first, checks them, then shows the totals and the payment methods', async () => {
    const shopper = shopBrowser(app);
    await addToCart(shopper, mug.id, 1);
    const first = await shopper.get(shopPath('/checkout'));
    expect(first.statusCode).toBe(200);
    expect(textOf(first.body)).toContain('Enter your contact and shipping details first');
    expect(first.body).not.toContain('name="paymentMethod"');

    const bad = await shopper.post(shopPath('/checkout/details'), {
      ...ADDRESS,
      email: 'nope',
      city: '',
      country: 'XX',
    });
    expect(bad.statusCode).toBe(400);
    const badText = textOf(bad.body);
    expect(badText).toContain('Enter an e-mail address like name@example.com.');
    expect(badText).toContain('Enter your city.');
    expect(badText).toContain('Choose a country.');
    expect(bad.body).toContain('value="Lovelace"');

    const saved = await shopper.post(shopPath('/checkout/details'), ADDRESS);
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(shopPath('/checkout#payment'));
    const page = await shopper.get(shopPath('/checkout'));
    const text = textOf(page.body);
    expect(text).toContain(
      'Contact ada@example.com Ship to Ada Lovelace 12 Analytical Row London N1 9GU United Kingdom',
    );
    expect(text).toContain('Change contact or address');
    expect(text).toMatch(/Subtotal \$12\.50 Shipping \$5\.00 Tax \$1\.25 Total \$18\.75/);
    expect(page.body).toContain('value="test_card"');
    expect(page.body).toContain('value="tok_decline"');
    expect(page.body).toContain('value="manual"');
    // This store has no Stripe account.
    expect(page.body).not.toContain('value="stripe"');
    expect(text).toContain('Place order · $18.75');
  });

  it('a declined test card places nothing; tok_visa places the paid order once, shown on its confirmation', async () => {
    const shopper = shopBrowser(app);
    const email = 'grace@example.com';
    const before = await stockOf(shirt.variants[0]?.id ?? '', 'variant');
    await addToCart(shopper, shirt.id, 2, variant('S'));
    await shopper.post(shopPath('/cart/coupon'), { code: 'TENOFF' });
    await shopper.post(shopPath('/checkout/details'), { ...ADDRESS, email });

    const declined = await shopper.post(shopPath('/checkout'), {
      paymentMethod: 'test_card',
      cardToken: 'tok_decline',
    });
    expect(declined.statusCode).toBe(402);
    expect(textOf(declined.body)).toContain(
      'Your card was declined. No order was placed and nothing was charged',
    );
    expect(await ordersOf(email)).toHaveLength(0);
    expect(await stockOf(shirt.variants[0]?.id ?? '', 'variant')).toBe(before);

    const cartCookie = shopper.cookie('emporium_cart') ?? '';
    const paid = await shopper.post(shopPath('/checkout'), {
      paymentMethod: 'test_card',
      cardToken: 'tok_visa',
    });
    expect(paid.statusCode).toBe(303);
    const confirmation = String(paid.headers.location);
    expect(confirmation).toMatch(new RegExp(`^/shop/${slug}/orders/\\d+/confirmation$`));
    expect(shopper.cookie('emporium_cart')).toBeUndefined();
    expect(shopper.cookie('emporium_receipt')).toBe(cartCookie);

    const orders = (await ordersOf(email)) as unknown as {
      order_number: number;
      total: number;
      discount_amount: number;
      payment_status: string;
    }[];
    expect(orders).toHaveLength(1);
    const order = orders[0];
    // 2 × 20.00 = 40.00, −10 % = 36.00, shipping 5.00, tax 3.60.
    expect(order).toMatchObject({ payment_status: 'paid', total: 44.6, discount_amount: 4 });
    expect(await stockOf(shirt.variants[0]?.id ?? '', 'variant')).toBe(before - 2);

    const page = await shopper.get(confirmation);
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('private, no-store');
    const text = textOf(page.body);
    expect(text).toContain(`Order #${order?.order_number}`);
    expect(text).toContain('Thank you for your order');
    expect(text).toContain('Payment received.');
    expect(text).toContain('Linen Shirt · S × 2');
    expect(text).toMatch(
      /Subtotal \$40\.00 Discount \(TENOFF\) −\$4\.00 Shipping \$5\.00 Tax \$3\.60 Total \$44\.60/,
    );
    expect(text).toContain('Ada Lovelace 12 Analytical Row London N1 9GU United Kingdom');
    expect(text).not.toMatch(/e-?mailed|sent you an e-?mail/i);

    // The same form sent again (a double click): the same order, not a second one.
    shopper.setCookie('emporium_cart', cartCookie, `/shop/${slug}/`);
    const again = await shopper.post(shopPath('/checkout'), {
      paymentMethod: 'test_card',
      cardToken: 'tok_visa',
    });
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(confirmation);
    const late = await shopper.post(shopPath('/checkout'), {
      paymentMethod: 'test_card',
      cardToken: 'tok_visa',
    });
    expect(late.headers.location).toBe(confirmation);
    expect(await ordersOf(email)).toHaveLength(1);

    // Nobody else sees it: not a stranger, not another shopper with a receipt of their own.
    expect((await shopBrowser(app).get(confirmation)).statusCode).toBe(404);
    const stranger = shopBrowser(app);
    stranger.setCookie('emporium_receipt', 'not-a-cart', `/shop/${slug}/`);
    expect((await stranger.get(confirmation)).statusCode).toBe(404);
  });

  it('pay later places a pending order; stock gone before completion is a 409 naming the item', async () => {
    const shopper = shopBrowser(app);
    const lamp = await createProduct(api, { name: 'Desk Lamp', price: '30.00', inventory: 2 });
    await addToCart(shopper, lamp.id, 2);
    await shopper.post(shopPath('/checkout/details'), { ...ADDRESS, email: 'late@example.com' });
    const adjusted = await api.patch(`/api/v1/inventory/${lamp.id}`, { adjustment: -1, reason: 'broken' });
    expect(adjusted.statusCode, adjusted.body).toBe(200);
    const short = await shopper.post(shopPath('/checkout'), { paymentMethod: 'manual' });
    expect(short.statusCode).toBe(409);
    expect(textOf(short.body)).toContain('not enough stock of Desk Lamp: 1 left');
    expect(await ordersOf('late@example.com')).toHaveLength(0);

    const [line] = lineIds((await shopper.get(shopPath('/cart'))).body);
    await shopper.post(shopPath(`/cart/items/${line}`), { quantity: '1' });
    const placed = await shopper.post(shopPath('/checkout'), { paymentMethod: 'manual' });
    expect(placed.statusCode).toBe(303);
    const text = textOf((await shopper.get(String(placed.headers.location))).body);
    expect(text).toContain('waits for your payment of $38.00');
    expect(text).toContain('Awaiting payment');
    expect(await stockOf(lamp.id)).toBe(0);
    expect(await ordersOf('late@example.com')).toMatchObject([{ payment_status: 'unpaid', total: 38 }]);
  });

  it('refuses a payment method the shop does not offer', async () => {
    const shopper = shopBrowser(app);
    await addToCart(shopper, mug.id, 1);
    await shopper.post(shopPath('/checkout/details'), ADDRESS);
    const res = await shopper.post(shopPath('/checkout'), { paymentMethod: 'stripe' });
    expect(res.statusCode).toBe(400);
    expect(textOf(res.body)).toContain('Choose a payment method.');
  });
});

describe('checkout with Stripe', () => {
  it("places the order and opens Stripe's Payment Element with its client secret and publishable key", async () => {
    const store = await createStoreWithKey(app);
    const stripeApi = client(app, store.key);
    const keys = stripeKeys();
    stripe.allowKey(keys.secret_key);
    expect((await stripeApi.put('/api/v1/payments/stripe', keys)).statusCode).toBe(200);
    const scarf = await createProduct(stripeApi, { name: 'Wool Scarf', price: '25.00', inventory: 4 });
    const s = store.store.slug;
    const shopper = shopBrowser(app);
    await shopper.post(shopPath('/cart/items', s), { productId: scarf.id, quantity: '1' });
    await shopper.post(shopPath('/checkout/details', s), { ...ADDRESS, email: 'card@example.com' });
    const checkout = await shopper.get(shopPath('/checkout', s));
    expect(checkout.body).toContain('value="stripe"');

    const placed = await shopper.post(shopPath('/checkout', s), { paymentMethod: 'stripe' });
    expect(placed.statusCode).toBe(303);
    const pay = String(placed.headers.location);
    expect(pay).toMatch(new RegExp(`^/shop/${s}/orders/\\d+/pay$`));
    const intent = [...stripe.intents.values()].find((pi) => pi.amount === 2500);
    expect(intent).toBeDefined();
    const page = await shopper.get(pay);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`data-publishable-key="${keys.publishable_key}"`);
    expect(page.body).toContain(`data-client-secret="${intent?.client_secret}"`);
    expect(page.body).toContain(`data-return-url="${SHOP_ORIGIN}${pay.replace(/pay$/, 'confirmation')}"`);
    expect(page.body).toMatch(/<script type="module" src="\/shop-assets\/checkout-[\w-]+\.js">/);
    expect((await stripeApi.get(`/api/v1/inventory/${scarf.id}`)).json().data.inventory).toBe(3);

    const confirmation = textOf((await shopper.get(pay.replace(/pay$/, 'confirmation'))).body);
    expect(confirmation).toContain('This order waits for your card payment.');
  });
});
