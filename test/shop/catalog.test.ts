import { randomBytes } from 'node:crypto';
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

/** The shop's catalogue pages as served: list (category, search, sort, pages), product, sitemap, robots. */
let app: TestApp;
let api: Client;
let slug: string;
let otherSlug: string;
let storeId: string;
let mug: ProductData;
let shirt: ProductData;
let draft: ProductData;
let archived: ProductData;
let other: ProductData;

const get = (url: string, headers: Record<string, string> = {}) =>
  app.server.inject({ method: 'GET', url, headers });
const shop = (path: string) => `/shop/${slug}${path}`;

/** The JSON-LD objects of a page, parsed. */
function jsonLdOf(html: string): Record<string, unknown>[] {
  return [...html.matchAll(/<script type="application\/ld\+json">(.*?)<\/script>/g)].map((m) =>
    JSON.parse(m[1] as string),
  );
}

beforeAll(async () => {
  app = await buildTestApp({ config: UNLIMITED });
  slug = `cat-${randomBytes(4).toString('hex')}`;
  otherSlug = `other-${randomBytes(4).toString('hex')}`;
  const store = await app.services.stores.createStore({ slug, name: 'Cat & Co', currency: 'USD' });
  storeId = store.id;
  api = client(app, (await app.services.stores.createApiKey(store.id, { scopes: 'all' })).key);
  const mugs = await createCategory(api, { name: 'Mugs' });
  await createCategory(api, { name: 'Shirts' });
  mug = await createProduct(api, {
    name: 'Blue Mug',
    price: '12.50',
    compare_price: '15.00',
    sku: 'MUG-BLUE',
    inventory: 5,
    category_ids: [mugs.id],
    description: 'A sturdy mug.\n\n<script>alert("x")</script> & more',
    images: [{ url: 'https://img.example/blue-mug.jpg' }, { url: 'https://img.example/blue-mug-2.jpg' }],
  });
  await createProduct(api, { name: 'Red Mug', price: '9.00', inventory: 3, category_ids: [mugs.id] });
  shirt = await createProduct(api, {
    name: 'Linen Shirt',
    price: '40.00',
    options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
    variants: [
      { options: { Size: 'S' }, price: '40.00', inventory: 0, sku: 'SH-S' },
      { options: { Size: 'M' }, price: '42.00', compare_price: '50.00', inventory: 4, sku: 'SH-M' },
      { options: { Size: 'L' }, price: '44.00', inventory: 0, sku: 'SH-L' },
    ],
  });
  for (let n = 1; n <= 24; n++)
    await createProduct(api, {
      name: `Filler ${String(n).padStart(2, '0')}`,
      price: `${n}.00`,
      inventory: 10,
    });
  draft = await createProduct(api, { name: 'Secret Draft Mug', price: '5.00', status: 'draft' });
  archived = await createProduct(api, { name: 'Old Archived Mug', price: '5.00', status: 'archived' });

  const otherStore = await app.services.stores.createStore({ slug: otherSlug, name: 'Other Shop' });
  const otherApi = client(
    app,
    (await app.services.stores.createApiKey(otherStore.id, { scopes: 'all' })).key,
  );
  other = await createProduct(otherApi, { name: 'Bravo Only Lamp', price: '70.00' });
});
afterAll(() => app.close());

describe('the product page', () => {
  it('holds the name, price, compare-at price, canonical link, Open Graph and a JSON-LD offer', async () => {
    const res = await get(shop(`/products/${mug.slug}`));
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    const html = res.body;
    expect(html).toContain('<title>Blue Mug | Cat &amp; Co</title>');
    expect(html).toContain('<h1>Blue Mug</h1>');
    expect(html).toContain('$12.50');
    expect(html).toContain('$15.00');
    expect(html).toContain(
      `<link rel="canonical" href="http://localhost:3000/shop/${slug}/products/${mug.slug}"/>`,
    );
    expect(html).toContain('<meta property="og:type" content="product"/>');
    expect(html).toContain('<meta property="og:image" content="https://img.example/blue-mug.jpg"/>');
    expect(html).toContain('alt="Blue Mug"');
    const product = jsonLdOf(html).find((d) => d['@type'] === 'Product');
    expect(product).toMatchObject({
      name: 'Blue Mug',
      sku: 'MUG-BLUE',
      image: ['https://img.example/blue-mug.jpg', 'https://img.example/blue-mug-2.jpg'],
      offers: {
        '@type': 'Offer',
        price: '12.50',
        priceCurrency: 'USD',
        availability: 'https://schema.org/InStock',
        url: `http://localhost:3000/shop/${slug}/products/${mug.slug}`,
      },
    });
    // The add-to-cart and wishlist forms post to the shop with the agreed field names.
    expect(html).toContain(`action="/shop/${slug}/cart/items"`);
    expect(html).toContain(`<input type="hidden" name="productId" value="${mug.id}"/>`);
    expect(html).toMatch(
      /<input id="product-quantity" type="number" min="1"[^>]* name="quantity" value="1"\/>/,
    );
    expect(html).toContain(`action="/shop/${slug}/account/wishlist"`);
    expect(html).toContain('Save to wishlist');
  });

  it('shows the description as text: markup in it is never HTML', async () => {
    const html = (await get(shop(`/products/${mug.slug}`))).body;
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more');
    expect(html).toContain('<p>A sturdy mug.</p>');
  });

  it('lists the variants in a select that works without script, opening on one in stock', async () => {
    const html = (await get(shop(`/products/${shirt.slug}`))).body;
    const [small, medium, large] = shirt.variants;
    expect(html).toContain('<select id="product-variant" name="variantId">');
    expect(html).toContain(`<option value="${small?.id}">S — $40.00 — Sold out</option>`);
    expect(html).toContain(`<option value="${medium?.id}" selected="">M — $42.00</option>`);
    expect(html).toContain(`<option value="${large?.id}">L — $44.00 — Sold out</option>`);
    expect(html).toContain('<span data-price="">$42.00</span>');
    expect(html).toMatch(/<button type="submit" data-add-to-cart="">Add to cart<\/button>/);
    // The picker's data, for the script.
    const json = html.match(/<script type="application\/json" id="product-variants">(.*?)<\/script>/)?.[1];
    expect(JSON.parse(json as string)).toEqual([
      { id: small?.id, price: '$40.00', compare: null, inStock: false, sku: 'SH-S', image: null },
      { id: medium?.id, price: '$42.00', compare: '$50.00', inStock: true, sku: 'SH-M', image: null },
      { id: large?.id, price: '$44.00', compare: null, inStock: false, sku: 'SH-L', image: null },
    ]);
    // Without script, the page shows the SKU of the variant it opens on.
    expect(html).toContain('SKU <span data-sku="">SH-M</span>');
    const product = jsonLdOf(html).find((d) => d['@type'] === 'Product') as {
      offers: Record<string, unknown>;
    };
    expect(product.offers).toMatchObject({
      '@type': 'AggregateOffer',
      lowPrice: '40.00',
      highPrice: '44.00',
      offerCount: 3,
      priceCurrency: 'USD',
      availability: 'https://schema.org/InStock',
    });
    expect((product.offers.offers as unknown[])[0]).toMatchObject({
      sku: 'SH-S',
      price: '40.00',
      availability: 'https://schema.org/OutOfStock',
    });
  });

  it('opens on the picture whose alt text names the variant shown, and gives each variant its own', async () => {
    const scarf = await createProduct(api, {
      name: 'Wool Scarf',
      price: '30.00',
      sku: 'SCARF',
      options: [{ name: 'Colour', values: ['Red', 'Blue', 'Green'] }],
      images: [
        { url: 'https://img.example/scarf.jpg', alt: 'Scarf, all colours', is_primary: true },
        { url: 'https://img.example/scarf-red.jpg', alt: 'Red scarf' },
        { url: 'https://img.example/scarf-blue.jpg', alt: 'Scarf in blue, folded' },
      ],
      variants: [
        { options: { Colour: 'Red' }, inventory: 0, sku: 'SCARF-R' },
        { options: { Colour: 'Blue' }, inventory: 2, sku: 'SCARF-B' },
        // No picture names green, and no SKU of its own: the product's main picture and SKU.
        { options: { Colour: 'Green' }, inventory: 2 },
      ],
    });
    const html = (await get(shop(`/products/${scarf.slug}`))).body;
    const json = html.match(/<script type="application\/json" id="product-variants">(.*?)<\/script>/)?.[1];
    const views = JSON.parse(json as string) as { sku: string | null; image: string | null }[];
    expect(views.map((v) => [v.sku, v.image])).toEqual([
      ['SCARF-R', 'https://img.example/scarf-red.jpg'],
      ['SCARF-B', 'https://img.example/scarf-blue.jpg'],
      ['SCARF', 'https://img.example/scarf.jpg'],
    ]);
    // Red is sold out: the page opens on Blue, its picture and its SKU.
    expect(html).toMatch(
      /<img class="product__image" data-main-image="" src="https:\/\/img.example\/scarf-blue.jpg"/,
    );
    expect(html).toContain('SKU <span data-sku="">SCARF-B</span>');
    expect(html).toMatch(/href="https:\/\/img.example\/scarf-blue.jpg" data-thumb="" aria-current="true"/);
    // The list tests below count this store's products.
    expect((await api.del(`/api/v1/products/${scarf.id}`)).statusCode).toBe(204);
  });

  it('disables adding a product that is sold out', async () => {
    const soldOut = await createProduct(api, { name: 'Gone Vase', price: '30.00', inventory: 0 });
    const html = (await get(shop(`/products/${soldOut.slug}`))).body;
    expect(html).toMatch(/<button type="submit" data-add-to-cart="" disabled="">Sold out<\/button>/);
    expect(html).toContain('https://schema.org/OutOfStock');
  });

  it('draws drafts, archived, unknown and other stores’ products as the 404 page in the frame', async () => {
    for (const path of [
      `/products/${draft.slug}`,
      `/products/${archived.slug}`,
      '/products/no-such-thing',
      `/products/${other.slug}`,
      `/products/${'x'.repeat(100)}`,
    ]) {
      const res = await get(shop(path));
      expect(res.statusCode, path).toBe(404);
      expect(res.body).toContain('Page not found');
      expect(res.body).toContain('Cat &amp; Co');
      expect(res.headers['cache-control']).toBe('private, no-store');
    }
  });
});

describe('the product list', () => {
  it('lists 24 products a page, newest first, with page links (rel prev/next)', async () => {
    const first = await get(shop('/products'));
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('<title>All products | Cat &amp; Co</title>');
    expect(first.body).toContain(
      `<link rel="canonical" href="http://localhost:3000/shop/${slug}/products"/>`,
    );
    expect(first.body).toContain('Showing 1–24 of 28 products');
    expect(first.body).toContain(`rel="next" href="/shop/${slug}/products?page=2"`);
    expect(first.body).not.toContain('rel="prev"');
    expect(first.body).toContain('Filler 24');
    expect(first.body).not.toContain('Blue Mug');
    const second = await get(shop('/products?page=2&utm_source=news'));
    expect(second.statusCode).toBe(200);
    expect(second.body).toContain('<title>All products · Page 2 | Cat &amp; Co</title>');
    // Parameters that change nothing are left out of the canonical address.
    expect(second.body).toContain(
      `<link rel="canonical" href="http://localhost:3000/shop/${slug}/products?page=2"/>`,
    );
    expect(second.body).toContain(`rel="prev" href="/shop/${slug}/products"`);
    expect(second.body).toContain('aria-current="page" aria-label="Page 2"');
    expect(second.body).toContain('Blue Mug');
    expect((await get(shop('/products?page=3'))).statusCode).toBe(404);
  });

  it('filters by category, with its name as the title and the categories beside the list', async () => {
    const res = await get(shop('/products?category=mugs'));
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<title>Mugs | Cat &amp; Co</title>');
    expect(res.body).toContain('Blue Mug');
    expect(res.body).toContain('Red Mug');
    expect(res.body).not.toContain('Filler');
    expect(res.body).toContain(`href="/shop/${slug}/products?category=mugs" aria-current="page"`);
    // A category without active products is not offered.
    expect(res.body).not.toContain('Shirts');
    expect((await get(shop('/products?category=no-such'))).statusCode).toBe(404);
  });

  it('searches without JavaScript: a GET form whose results page has its own title', async () => {
    const home = (await get(shop('/'))).body;
    expect(home).toMatch(new RegExp(`<form[^>]* action="/shop/${slug}/products" method="get"`));
    expect(home).toContain('name="q"');
    const res = await get(shop('/products?q=mug'));
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<title>Search: mug | Cat &amp; Co</title>');
    expect(res.body).toContain('Blue Mug');
    expect(res.body).toContain('Red Mug');
    expect(res.body).not.toContain('Secret Draft Mug');
    expect(res.body).not.toContain('Filler');
    expect(res.body).toContain('<meta name="robots" content="noindex"/>');
    const none = await get(shop('/products?q=zebra'));
    expect(none.statusCode).toBe(200);
    expect(none.body).toContain('No products found');
    expect(none.body).toContain('Nothing matches &quot;zebra&quot;');
  });

  it('sorts by price and name through a GET form', async () => {
    const order = (html: string, names: string[]) => names.map((n) => html.indexOf(n));
    const asc = (await get(shop('/products?category=mugs&sort=price_asc'))).body;
    expect(asc).toContain('<title>Mugs · Price: low to high | Cat &amp; Co</title>');
    const [blue, red] = order(asc, ['Blue Mug', 'Red Mug']);
    expect(red).toBeLessThan(blue as number);
    const desc = (await get(shop('/products?category=mugs&sort=price_desc'))).body;
    const [blue2, red2] = order(desc, ['Blue Mug', 'Red Mug']);
    expect(blue2).toBeLessThan(red2 as number);
    expect(desc).toMatch(/<select id="catalog-sort" name="sort">/);
    expect(desc).toContain('<option value="price_desc" selected="">');
    const byName = (await get(shop('/products?sort=name'))).body;
    expect(byName.indexOf('Blue Mug')).toBeLessThan(byName.indexOf('Filler 01'));
  });

  it('prices a product with variants as its page opens on it: "From" the cheapest in stock, its "Was"', async () => {
    /** The price paragraph of a product's card, tags removed. */
    const cardPrice = (html: string, name: string) => {
      const card = html.split('<li class="product-card">').find((c) => c.includes(`>${name}</span>`));
      const price = card?.match(/<p class="product-card__price">(.*?)<\/p>/)?.[1] ?? '';
      return price.replace(/<[^>]+>/g, '');
    };
    const list = (await get(shop('/products?q=linen'))).body;
    // S ($40) is sold out; M ($42, was $50) is the one the product page opens on and sells.
    expect(cardPrice(list, 'Linen Shirt')).toBe('From $42.00Was $50.00');
    const page = (await get(shop(`/products/${shirt.slug}`))).body;
    expect(page).toContain('<span data-price="">$42.00</span>');
    expect(page).toContain('<span data-compare-amount="">$50.00</span>');
    // A product without variants keeps its own price, and no "From".
    expect(cardPrice((await get(shop('/products?q=blue'))).body, 'Blue Mug')).toBe('$12.50Was $15.00');
  });

  it('answers hostile query parameters with a 4xx or a sane page, never a 5xx', async () => {
    const cases: [string, number][] = [
      [`/products?q=${'a'.repeat(5000)}`, 200],
      ['/products?page=-1', 400],
      ['/products?page=abc', 400],
      ['/products?page=1e9', 400],
      ['/products?page=99999999999999999999', 400],
      ['/products?sort=bogus', 200],
      ['/products?q=%27%22<b>', 200],
      ['/products?q=%00', 400],
      ['/products?q[]=x&category[a]=b', 200],
      ['/products?category=%F0%9F%98%80', 404],
      ['/products?q=100%25', 200],
    ];
    for (const [path, status] of cases) {
      const res = await get(shop(path));
      expect(res.statusCode, path).toBe(status);
      expect(res.body).toContain('Cat &amp; Co');
    }
    const bogus = await get(shop('/products?sort=bogus'));
    expect(bogus.body).toContain(
      `<link rel="canonical" href="http://localhost:3000/shop/${slug}/products"/>`,
    );
    expect((await get(shop('/products?q=%3Cb%3E'))).body).not.toContain('<b>');
  });
});

describe('isolation between stores', () => {
  it('never shows one store’s products in another’s shop', async () => {
    const list = (await get(`/shop/${otherSlug}/products`)).body;
    expect(list).toContain('Bravo Only Lamp');
    expect(list).not.toContain('Blue Mug');
    expect((await get(`/shop/${otherSlug}/products?q=mug`)).body).toContain('No products found');
    expect((await get(`/shop/${otherSlug}/products/${mug.slug}`)).statusCode).toBe(404);
    expect((await get(shop('/products?q=lamp'))).body).not.toContain('Bravo Only Lamp');
  });
});

describe('the sitemap and robots.txt', () => {
  it('lists the home, the lists and every active product of this store only', async () => {
    const res = await get(shop('/sitemap.xml'));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
    const xml = res.body;
    expect(
      xml.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
      ),
    ).toBe(true);
    const locs = [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]);
    const base = `http://localhost:3000/shop/${slug}`;
    expect(locs).toContain(`${base}/`);
    expect(locs).toContain(`${base}/products`);
    expect(locs).toContain(`${base}/products?category=mugs`);
    expect(locs).toContain(`${base}/products/${mug.slug}`);
    expect(locs).toContain(`${base}/products/${shirt.slug}`);
    expect(locs.filter((l) => l?.includes('/products/'))).toHaveLength(28);
    expect(xml).not.toContain(draft.slug);
    expect(xml).not.toContain(archived.slug);
    expect(xml).not.toContain(other.slug);
    expect(xml).toMatch(new RegExp(`<loc>${base}/products/${mug.slug}</loc><lastmod>\\d{4}-\\d\\d-\\d\\dT`));
  });

  it('serves robots.txt: everything allowed but the cart, checkout and account, and the sitemap', async () => {
    const res = await get(shop('/robots.txt'));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toBe(
      [
        'User-agent: *',
        'Allow: /',
        `Disallow: /shop/${slug}/cart`,
        `Disallow: /shop/${slug}/checkout`,
        `Disallow: /shop/${slug}/account`,
        `Sitemap: http://localhost:3000/shop/${slug}/sitemap.xml`,
        '',
      ].join('\n'),
    );
  });
});

describe('the page cache', () => {
  it('shows a price changed through the merchant API at once, and stock changes too', async () => {
    const path = shop(`/products/${mug.slug}`);
    expect((await get(path)).body).toContain('$12.50');
    const patch = await api.patch(`/api/v1/products/${mug.id}`, { price: '13.75' });
    expect(patch.statusCode).toBe(200);
    const after = await get(path);
    expect(after.body).toContain('$13.75');
    expect(after.body).not.toContain('$12.50');
    expect((await get(shop('/products?category=mugs'))).body).toContain('$13.75');
    const adjust = await api.patch(`/api/v1/inventory/${mug.id}`, { adjustment: -5 });
    expect(adjust.statusCode).toBe(200);
    expect((await get(path)).body).toMatch(/data-add-to-cart="" disabled="">Sold out/);
  });

  it('shows a variant’s new price on the cached list pages at once', async () => {
    const listPath = shop('/products?q=linen');
    expect((await get(listPath)).body).toContain('From $42.00');
    const [small, medium, large] = shirt.variants;
    const variants = [small, { ...medium, price: '38.00' }, large].map((v) => ({
      id: v?.id,
      options: v?.options,
      price: v?.price,
    }));
    const patch = await api.patch(`/api/v1/products/${shirt.id}`, { variants });
    expect(patch.statusCode).toBe(200);
    const after = (await get(listPath)).body;
    expect(after).toContain('From $38.00');
    expect(after).not.toContain('$42.00');
    expect((await get(shop('/products?page=2'))).body).toContain('From $38.00');
  });

  it('serves the same page (and ETag) within its TTL, and a change made elsewhere within 5 s', async () => {
    const path = shop(`/products/${shirt.slug}`);
    const first = await get(path);
    const again = await get(path);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect((await get(path, { 'if-none-match': String(first.headers.etag) })).statusCode).toBe(304);
    // Another process (a second server, the worker) changes the price: this process is not told.
    await app.database.db
      .updateTable('product_variants')
      .set({ price: 4321 })
      .where('id', '=', shirt.variants[1]?.id as string)
      .execute();
    const changedAt = Date.now();
    let body = (await get(path)).body;
    while (!body.includes('$43.21') && Date.now() - changedAt < 7_000) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      body = (await get(path)).body;
    }
    expect(body).toContain('$43.21');
    expect(Date.now() - changedAt).toBeLessThanOrEqual(5_500);
    void storeId;
  });
});
