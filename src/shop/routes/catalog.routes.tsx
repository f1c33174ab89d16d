import type { FastifyInstance } from 'fastify';
import { notFound } from '../../platform/http/errors.js';
import { listPath, PER_PAGE, parseListQuery } from '../catalog-query.js';
import { createPageCache, sendCached } from '../page-cache.js';
import { ProductPage } from '../pages/product.js';
import { ProductListPage } from '../pages/product-list.js';
import { renderDocument } from '../render.js';
import { shopOf } from '../shop-context.js';
import type { ShopDeps } from '../shop-deps.js';

/** The storefront's bound on a product slug: anything longer names no product. */
const MAX_PRODUCT_SLUG = 200;
/** Categories shown beside the list (the storefront's page size for them). */
const CATEGORY_LIMIT = 100;

/**
 * The catalogue's pages: GET /products (category, search, sort, page) and GET /products/:slug.
 * Both are public and served from the page cache (page-cache.ts), keyed by the normalised query.
 */
export async function catalogRoutes(app: FastifyInstance, deps: ShopDeps) {
  const pages = createPageCache({ changes: deps.catalogChanges, ttlMs: deps.pageCacheTtlMs });

  app.get('/products', async (request, reply) => {
    const shop = shopOf(request);
    const query = parseListQuery(request.query);
    const page = await pages.get(shop, listPath(query), 'html', async () => {
      const [categories, list] = await Promise.all([
        deps.categories.list(shop.store.id, { page: 1, limit: CATEGORY_LIMIT }, { activeOnly: true }),
        deps.products.storefrontList(
          shop.store,
          { page: query.page, limit: PER_PAGE },
          { sort: query.sort, categorySlug: query.category, q: query.q },
        ),
      ]);
      const all = categories.rows.map((row) => ({
        id: row.id,
        name: row.name,
        slug: row.slug,
        productCount: row.product_count,
      }));
      const category = all.find((c) => c.slug === query.category);
      // An unknown category is a page that does not exist (when the list above holds them all).
      if (query.category && !category && categories.total <= all.length) throw notFound('category');
      const totalPages = Math.max(1, Math.ceil(list.total / PER_PAGE));
      if (query.page > totalPages) throw notFound('page');
      return renderDocument(
        <ProductListPage
          shop={shop}
          data={{
            query,
            category,
            categories: all.filter((c) => c.productCount > 0 || c.slug === query.category),
            products: list.data,
            total: list.total,
            totalPages,
          }}
        />,
      );
    });
    return sendCached(reply, page);
  });

  app.get('/products/:productSlug', async (request, reply) => {
    const shop = shopOf(request);
    const { productSlug } = request.params as { productSlug: string };
    if (productSlug.length > MAX_PRODUCT_SLUG) throw notFound('product');
    const page = await pages.get(shop, `/products/${productSlug}`, 'html', async () => {
      // Drafts, archived and unknown products: not_found, drawn as the shop's 404 page.
      const data = await deps.products.storefrontProduct(shop.store, productSlug);
      return renderDocument(<ProductPage shop={shop} data={data} />);
    });
    return sendCached(reply, page);
  });
}
