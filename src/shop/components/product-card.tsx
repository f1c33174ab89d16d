import type { ReactNode } from 'react';
import { formatMoney } from '../money.js';
import { type ShopContext, shopHref } from '../shop-context.js';

export interface ProductSummary {
  id: string;
  name: string;
  slug: string;
  /** Decimal strings in the store's currency, as the storefront API gives them. */
  price: string;
  comparePrice: string | null;
  /** The variants cost different amounts: `price` is the lowest, shown as "From". */
  priceVaries: boolean;
  image: string | null;
  inStock: boolean;
}

/**
 * One product in a grid: image, name, price (and the compare-at price struck through), stock; with
 * `children` after them (the wishlist's remove button).
 */
export function ProductCard({
  shop,
  product,
  className,
  children,
}: {
  shop: ShopContext;
  product: ProductSummary;
  className?: string;
  children?: ReactNode;
}) {
  const currency = shop.store.currency;
  return (
    <li className={className ? `product-card ${className}` : 'product-card'}>
      <a href={shopHref(shop, `/products/${encodeURIComponent(product.slug)}`)}>
        {product.image ? (
          <img src={product.image} alt="" loading="lazy" width={400} height={400} />
        ) : (
          <span className="product-card__placeholder" aria-hidden="true" />
        )}
        <span className="product-card__name">{product.name}</span>
      </a>
      <p className="product-card__price">
        <span>{`${product.priceVaries ? 'From ' : ''}${formatMoney(product.price, currency)}`}</span>
        {product.comparePrice !== null && Number(product.comparePrice) > Number(product.price) ? (
          <s>
            <span className="visually-hidden">Was </span>
            {formatMoney(product.comparePrice, currency)}
          </s>
        ) : null}
        {product.inStock ? null : <span className="badge">Sold out</span>}
      </p>
      {children}
    </li>
  );
}

export function ProductGrid({ shop, products }: { shop: ShopContext; products: ProductSummary[] }) {
  return (
    <ul className="product-grid">
      {products.map((product) => (
        <ProductCard key={product.id} shop={shop} product={product} />
      ))}
    </ul>
  );
}
