import { Frame } from '../components/frame.js';
import { ProductGrid, type ProductSummary } from '../components/product-card.js';
import { type ShopContext, shopHref } from '../shop-context.js';

export interface HomeData {
  categories: { id: string; name: string; slug: string; productCount: number }[];
  newest: ProductSummary[];
}

/** Home: the store's welcome, its categories and its newest products. */
export function HomePage({ shop, data }: { shop: ShopContext; data: HomeData }) {
  const { store } = shop;
  return (
    <Frame
      shop={shop}
      meta={{
        title: 'Home',
        description: `Shop ${store.name}: ${data.categories.map((c) => c.name).join(', ') || 'our products'}.`,
        canonicalPath: '/',
        image: store.logo,
      }}
    >
      <section className="hero">
        <h1>{store.name}</h1>
        <p>
          <a className="button" href={shopHref(shop, '/products')}>
            Shop all products
          </a>
        </p>
      </section>
      {data.categories.length > 0 ? (
        <section aria-labelledby="home-categories">
          <h2 id="home-categories">Categories</h2>
          <ul className="category-list">
            {data.categories.map((category) => (
              <li key={category.id}>
                <a href={shopHref(shop, `/products?category=${encodeURIComponent(category.slug)}`)}>
                  {category.name} <span className="muted">({category.productCount})</span>
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="home-newest">
        <h2 id="home-newest">New arrivals</h2>
        {data.newest.length > 0 ? (
          <ProductGrid shop={shop} products={data.newest} />
        ) : (
          <p>No products yet: come back soon.</p>
        )}
      </section>
    </Frame>
  );
}
