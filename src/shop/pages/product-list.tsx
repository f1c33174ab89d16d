import { type ListQuery, listPath, PER_PAGE, SORT_LABELS, SORTS } from '../catalog-query.js';
import { Frame } from '../components/frame.js';
import { Pagination } from '../components/pagination.js';
import { ProductGrid, type ProductSummary } from '../components/product-card.js';
import { type ShopContext, shopHref } from '../shop-context.js';

export interface ListCategory {
  id: string;
  name: string;
  slug: string;
  productCount: number;
}

export interface ProductListData {
  query: ListQuery;
  /** The category asked for, when it is one of the store's. */
  category?: ListCategory;
  categories: ListCategory[];
  products: ProductSummary[];
  total: number;
  totalPages: number;
}

/** The page's own title: what it lists, how it is sorted, which page ("Mugs · Price: low to high · Page 2"). */
export function listTitle(data: Pick<ProductListData, 'query' | 'category'>): string {
  const { query } = data;
  const parts = [
    query.q ? `Search: ${query.q}` : (data.category?.name ?? (query.category ? 'Category' : 'All products')),
  ];
  if (query.q && data.category) parts.push(`in ${data.category.name}`);
  if (query.sort !== 'newest') parts.push(SORT_LABELS[query.sort]);
  if (query.page > 1) parts.push(`Page ${query.page}`);
  return parts.join(' · ');
}

function description(data: ProductListData, storeName: string): string {
  const count = `${data.total.toLocaleString('en-US')} product${data.total === 1 ? '' : 's'}`;
  const what = data.query.q
    ? `${count} matching "${data.query.q}"${data.category ? ` in ${data.category.name}` : ''} at ${storeName}`
    : data.category
      ? `${data.category.name} at ${storeName}: ${count}`
      : `All products of ${storeName}: ${count}`;
  const sorted =
    data.query.sort === 'newest' ? '' : `, sorted by ${SORT_LABELS[data.query.sort].toLowerCase()}`;
  const page = data.query.page > 1 ? `, page ${data.query.page} of ${data.totalPages}` : '';
  return `${what}${sorted}${page}.`;
}

function CategoryNav({ shop, data }: { shop: ShopContext; data: ProductListData }) {
  const current = data.category?.slug;
  const link = (slug: string | undefined) => listPath({ ...data.query, category: slug, page: 1 });
  return (
    <nav className="catalog-categories" aria-label="Categories">
      <h2>Categories</h2>
      <ul>
        <li>
          <a href={shopHref(shop, link(undefined))} aria-current={current ? undefined : 'page'}>
            All products
          </a>
        </li>
        {data.categories.map((c) => (
          <li key={c.id}>
            <a href={shopHref(shop, link(c.slug))} aria-current={c.slug === current ? 'page' : undefined}>
              {c.name} <span className="catalog-categories__count">({c.productCount})</span>
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Search and sort in one GET form: it works without any script. */
function ListControls({ shop, data }: { shop: ShopContext; data: ProductListData }) {
  return (
    <form className="catalog-controls" method="get" action={shopHref(shop, '/products')}>
      {data.query.category ? <input type="hidden" name="category" value={data.query.category} /> : null}
      <div className="field">
        <label htmlFor="catalog-q">Search</label>
        <input id="catalog-q" type="search" name="q" defaultValue={data.query.q ?? ''} maxLength={200} />
      </div>
      <div className="field">
        <label htmlFor="catalog-sort">Sort by</label>
        <select id="catalog-sort" name="sort" defaultValue={data.query.sort}>
          {SORTS.map((sort) => (
            <option key={sort} value={sort}>
              {SORT_LABELS[sort]}
            </option>
          ))}
        </select>
      </div>
      <button type="submit">Apply</button>
    </form>
  );
}

/** GET /products: the catalogue, by category, search, sort and page. */
export function ProductListPage({ shop, data }: { shop: ShopContext; data: ProductListData }) {
  const { query } = data;
  const title = listTitle(data);
  const first = (query.page - 1) * PER_PAGE + 1;
  const last = first + data.products.length - 1;
  return (
    <Frame
      shop={shop}
      meta={{
        title,
        description: description(data, shop.store.name),
        canonicalPath: listPath(query),
        // Results of a search are not pages of their own for search engines.
        noindex: query.q !== undefined,
      }}
    >
      <div className="catalog">
        <aside className="catalog__side">
          <CategoryNav shop={shop} data={data} />
        </aside>
        <section className="catalog__main" aria-labelledby="catalog-title">
          <h1 id="catalog-title">{title}</h1>
          <ListControls shop={shop} data={data} />
          {data.products.length > 0 ? (
            <>
              <p className="catalog__count" role="status">
                {data.total > data.products.length
                  ? `Showing ${first}–${last} of ${data.total.toLocaleString('en-US')} products`
                  : `${data.total} product${data.total === 1 ? '' : 's'}`}
              </p>
              <ProductGrid shop={shop} products={data.products} />
              <Pagination
                shop={shop}
                page={query.page}
                totalPages={data.totalPages}
                pathOf={(page) => listPath(query, { page })}
              />
            </>
          ) : (
            <div className="catalog__empty" role="status">
              <h2>No products found</h2>
              <p>
                {query.q
                  ? `Nothing matches "${query.q}"${data.category ? ` in ${data.category.name}` : ''}. Try another word or browse every product.`
                  : 'There is nothing here yet: come back soon.'}
              </p>
              <p>
                <a className="button" href={shopHref(shop, '/products')}>
                  Browse all products
                </a>
              </p>
            </div>
          )}
        </section>
      </div>
    </Frame>
  );
}
