import type { FastifyInstance } from 'fastify';
import { notFound } from '../../platform/http/errors.js';
import { createPageCache, sendCached } from '../page-cache.js';
import { type ShopContext, shopHref, shopOf, shopUrl } from '../shop-context.js';
import type { ShopDeps } from '../shop-deps.js';

/** The sitemap protocol's limit of URLs per file; past it /sitemap.xml becomes an index of files. */
export const SITEMAP_URLS = 50_000;
/** Categories listed (a store has a few dozen; each page of them is one query). */
const MAX_CATEGORIES = 1_000;

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};
export const escapeXml = (text: string) => text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c] as string);

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';

function urlEntry(loc: string, lastmod?: Date): string {
  return `<url><loc>${escapeXml(loc)}</loc>${lastmod ? `<lastmod>${lastmod.toISOString()}</lastmod>` : ''}</url>\n`;
}

/**
 * The shop's sitemap (home, product list, each category's list, every active product, absolute
 * URLs) and robots.txt. A store with more URLs than one sitemap may hold gets a sitemap index at
 * /sitemap.xml naming /sitemap-{n}.xml files of at most SITEMAP_URLS each.
 */
export async function seoRoutes(app: FastifyInstance, deps: ShopDeps) {
  const cache = createPageCache({ changes: deps.catalogChanges, ttlMs: deps.pageCacheTtlMs });

  async function pageUrls(shop: ShopContext): Promise<string[]> {
    const urls = [shopUrl(shop, '/'), shopUrl(shop, '/products')];
    for (let page = 1; page * 100 <= MAX_CATEGORIES; page++) {
      const { rows, total } = await deps.categories.list(
        shop.store.id,
        { page, limit: 100 },
        { activeOnly: true },
      );
      for (const row of rows)
        if (row.product_count > 0)
          urls.push(shopUrl(shop, `/products?category=${encodeURIComponent(row.slug)}`));
      if (page * 100 >= total) break;
    }
    return urls;
  }

  /** A <urlset> of these page URLs, then `limit` product URLs from `offset`. */
  async function urlSet(shop: ShopContext, pages: string[], offset: number, limit: number): Promise<string> {
    const products = await deps.products.storefrontSitemap(shop.store.id, { offset, limit });
    let body = `${XML_HEAD}<urlset xmlns="${NS}">\n`;
    for (const url of pages) body += urlEntry(url);
    for (const p of products)
      body += urlEntry(shopUrl(shop, `/products/${encodeURIComponent(p.slug)}`), p.updated_at);
    return `${body}</urlset>\n`;
  }

  app.get('/sitemap.xml', async (request, reply) => {
    const shop = shopOf(request);
    const page = await cache.get(shop, '/sitemap.xml', 'xml', async () => {
      const [pages, count] = await Promise.all([
        pageUrls(shop),
        deps.products.storefrontCount(shop.store.id),
      ]);
      if (pages.length + count <= SITEMAP_URLS) return urlSet(shop, pages, 0, SITEMAP_URLS);
      const files = 1 + Math.ceil(count / SITEMAP_URLS);
      let body = `${XML_HEAD}<sitemapindex xmlns="${NS}">\n`;
      for (let n = 1; n <= files; n++)
        body += `<sitemap><loc>${escapeXml(shopUrl(shop, `/sitemap-${n}.xml`))}</loc></sitemap>\n`;
      return `${body}</sitemapindex>\n`;
    });
    return sendCached(reply, page);
  });

  // Files of a sitemap index: 1 holds the pages, 2… the products, SITEMAP_URLS at a time.
  app.get('/sitemap-:n.xml', async (request, reply) => {
    const shop = shopOf(request);
    const text = (request.params as { n: string }).n;
    const n = /^\d{1,4}$/.test(text) ? Number(text) : 0;
    if (n < 1) throw notFound('sitemap');
    const page = await cache.get(shop, `/sitemap-${n}.xml`, 'xml', async () => {
      if (n === 1) return urlSet(shop, await pageUrls(shop), 0, 0);
      const count = await deps.products.storefrontCount(shop.store.id);
      if ((n - 2) * SITEMAP_URLS >= count) throw notFound('sitemap');
      return urlSet(shop, [], (n - 2) * SITEMAP_URLS, SITEMAP_URLS);
    });
    return sendCached(reply, page);
  });

  app.get('/robots.txt', async (request, reply) => {
    const shop = shopOf(request);
    const page = await cache.get(shop, '/robots.txt', 'text', async () =>
      [
        'User-agent: *',
        'Allow: /',
        ...['/cart', '/checkout', '/account'].map((path) => `Disallow: ${shopHref(shop, path)}`),
        `Sitemap: ${shopUrl(shop, '/sitemap.xml')}`,
        '',
      ].join('\n'),
    );
    return sendCached(reply, page);
  });
}
