import { randomBytes } from 'node:crypto';
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
import { type Shopper, shopAccountClient } from '../helpers/shop-account.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';

/**
 * The sold-out product page's "Email me when it's back" form over HTTP (contract §13): a plain form
 * post that works without JavaScript, same-origin only, refusals shown beside the field, and a
 * confirmation that says the same whether or not the address was signed up already.
 */
let app: TestApp;
let smtp: SmtpCatcher;
let api: Client;
let shop: string;
let storeId: string;
let shopper: Shopper;
let soldOut: ProductData;
let inStock: ProductData;
let shirt: ProductData;

const unique = () => randomBytes(4).toString('hex');

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  app = await buildTestApp({
    config: { ...UNLIMITED, smtpUrl: smtp.url, publicUrl: 'http://localhost:3000' },
  });
  const store = await createStoreWithKey(app);
  api = client(app, store.key);
  shop = `/shop/${store.store.slug}`;
  storeId = store.store.id;
  shopper = shopAccountClient(app, smtp);
  soldOut = await createProduct(api, { name: 'Blue Mug', inventory: 0 });
  inStock = await createProduct(api, { name: 'Red Mug', inventory: 4 });
  shirt = await createProduct(api, {
    name: 'Linen Shirt',
    options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
    variants: [
      { options: { Size: 'S' }, inventory: 0 },
      { options: { Size: 'M' }, inventory: 4 },
      { options: { Size: 'L' }, inventory: 0 },
    ],
  });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const subscriptionsOf = (productId: string) =>
  app.database.db
    .selectFrom('back_in_stock_subscriptions')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('product_id', '=', productId)
    .execute();

const send = (
  product: ProductData,
  fields: Record<string, string>,
  options: Parameters<Shopper['post']>[2] = {},
) => shopper.post(`${shop}/products/${product.slug}/notify-me`, fields, { ip: shopper.nextIp(), ...options });

describe('the form on the product page', () => {
  it('a sold-out product shows it: a labelled e-mail field posting to the shop', async () => {
    const page = await shopper.get(`${shop}/products/${soldOut.slug}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`action="${shop}/products/${soldOut.slug}/notify-me"`);
    expect(page.body).toContain('Email me when it&#x27;s back');
    expect(page.body).toMatch(/<label for="notify-me-email">E-mail address<\/label>/);
    const input = page.body.match(/<input id="notify-me-email"[^>]*>/)?.[0] ?? '';
    for (const attribute of ['type="email"', 'name="email"', 'autoComplete="email"', 'required=""'])
      expect(input).toContain(attribute);
    // A product without variants has no variant to choose.
    expect(page.body).not.toContain('notify-me-variant');
  });

  it('a product in stock does not; one with sold-out variants offers only those', async () => {
    const page = await shopper.get(`${shop}/products/${inStock.slug}`);
    expect(page.body).not.toContain('notify-me');
    const sized = await shopper.get(`${shop}/products/${shirt.slug}`);
    const select =
      sized.body.match(/<select id="notify-me-variant" name="notifyVariantId">(.*?)<\/select>/)?.[1] ?? '';
    const offered = [...select.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]);
    const [small, medium, large] = shirt.variants;
    expect(offered).toEqual([small?.id, large?.id]);
    expect(offered).not.toContain(medium?.id);
    expect(sized.body).toMatch(/<label for="notify-me-variant">Notify me about<\/label>/);
  });
});

describe('POST /products/:slug/notify-me', () => {
  it('signs the address up and confirms; a repeat (any case) confirms alike and stores nothing new', async () => {
    const email = `form.${unique()}@example.com`;
    const first = await send(soldOut, { email });
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('private, no-store');
    expect(first.body).toContain('We&#x27;ll email you when it&#x27;s back in stock');
    expect(first.body).toContain(`href="${shop}/products/${soldOut.slug}"`);
    const again = await send(soldOut, { email: email.toUpperCase() });
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    const rows = await subscriptionsOf(soldOut.id);
    expect(rows.filter((r) => r.email === email)).toHaveLength(1);
    expect(rows.find((r) => r.email === email)).toMatchObject({ variant_id: null, customer_id: null });
  });

  it('signs up for the chosen sold-out variant', async () => {
    const email = `variant.${unique()}@example.com`;
    const large = shirt.variants[2]?.id as string;
    const res = await send(shirt, { email, notifyVariantId: large });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<strong>Linen Shirt (L)</strong> is sold out for now.');
    expect((await subscriptionsOf(shirt.id)).find((r) => r.email === email)?.variant_id).toBe(large);
  });

  it('a bad address comes back on the page with the reason beside the field, the address kept', async () => {
    const res = await send(soldOut, { email: 'not an address' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<h1>Blue Mug</h1>');
    expect(res.body).toMatch(/aria-invalid="true" aria-describedby="notify-me-error"/);
    expect(res.body).toMatch(
      /<p class="field-error" id="notify-me-error" role="alert">Enter a valid e-mail address/,
    );
    expect(res.body).toContain('value="not an address"');
    // The field to fix takes the focus (the form is below the fold on a phone).
    expect(res.body.match(/<input id="notify-me-email"[^>]*>/)?.[0]).toContain('autofocus=""');
    const empty = await send(soldOut, {});
    expect(empty.statusCode).toBe(400);
  });

  it('a variant not of the product is refused on the page (400)', async () => {
    const res = await send(shirt, { email: `x.${unique()}@example.com`, notifyVariantId: soldOut.id });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Choose one of the sold-out options.');
  });

  it('an unknown, draft or other store’s product is the 404 page', async () => {
    const draft = await createProduct(api, { inventory: 0, status: 'draft' });
    for (const productSlug of ['no-such-thing', draft.slug]) {
      const res = await shopper.post(`${shop}/products/${productSlug}/notify-me`, { email: 'a@example.com' });
      expect(res.statusCode).toBe(404);
    }
    const other = await createStoreWithKey(app);
    const res = await shopper.post(`/shop/${other.store.slug}/products/${soldOut.slug}/notify-me`, {
      email: 'a@example.com',
    });
    expect(res.statusCode).toBe(404);
    expect(await subscriptionsOf(draft.id)).toHaveLength(0);
  });

  it('refuses a post from another site or without an origin (403), storing nothing', async () => {
    const email = `csrf.${unique()}@example.com`;
    for (const origin of ['https://evil.example', null]) {
      const res = await send(soldOut, { email }, { origin });
      expect(res.statusCode, String(origin)).toBe(403);
    }
    expect((await subscriptionsOf(soldOut.id)).filter((r) => r.email === email)).toHaveLength(0);
  });

  it('past the limit of the address (5 per 15 minutes) the page says to wait, with Retry-After', async () => {
    const email = `many.${unique()}@example.com`;
    for (let i = 0; i < 5; i++) expect((await send(soldOut, { email })).statusCode).toBe(200);
    const res = await send(soldOut, { email });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.body).toMatch(/role="alert">Too many attempts\. Please wait \d+ minutes? and try again\./);
  });

  it("a signed-in shopper's sign-up names them (their devices get a push when it is back)", async () => {
    const { cookie } = await shopper.signIn(shop);
    const email = `signed.${unique()}@example.com`;
    const res = await send(soldOut, { email }, { cookie });
    expect(res.statusCode).toBe(200);
    const row = (await subscriptionsOf(soldOut.id)).find((r) => r.email === email);
    expect(row?.customer_id).toEqual(expect.any(String));
  });
});
