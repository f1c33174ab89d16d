import type { FastifyInstance } from 'fastify';
import { createPageCache, sendCached } from '../page-cache.js';
import { HomePage } from '../pages/home.js';
import { renderDocument } from '../render.js';
import { shopOf } from '../shop-context.js';
import type { ShopDeps } from '../shop-deps.js';

/** GET / of a shop: categories with active products, and the newest products; from the page cache. */
export async function homeRoutes(app: FastifyInstance, deps: ShopDeps) {
  const pages = createPageCache({ changes: deps.catalogChanges, ttlMs: deps.pageCacheTtlMs });
  // Only /shop/{slug}/: the bare /shop/{slug} redirects here (shop.routes.tsx), one URL per page.
  app.get('/', { prefixTrailingSlash: 'slash' }, async (request, reply) => {
    const shop = shopOf(request);
    const page = await pages.get(shop, '/', 'html', async () => {
      const [categories, newest] = await Promise.all([
        deps.categories.list(shop.store.id, { page: 1, limit: 100 }, { activeOnly: true }),
        deps.products.storefrontList(shop.store, { page: 1, limit: 8 }, { sort: 'newest' }),
      ]);
      const data = {
        categories: categories.rows
          .filter((row) => row.product_count > 0)
          .map((row) => ({ id: row.id, name: row.name, slug: row.slug, productCount: row.product_count })),
        newest: newest.data,
      };
      return renderDocument(<HomePage shop={shop} data={data} />);
    });
    return sendCached(reply, page);
  });
}
