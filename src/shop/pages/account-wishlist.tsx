import { AccountLayout } from '../components/account-layout.js';
import { Frame } from '../components/frame.js';
import type { ProductSummary } from '../components/product-card.js';
import { formatMoney } from '../money.js';
import { type ShopContext, shopHref } from '../shop-context.js';

export interface WishlistPageData {
  email: string;
  products: ProductSummary[];
  done?: string;
}

function WishlistItem({ shop, product }: { shop: ShopContext; product: ProductSummary }) {
  const currency = shop.store.currency;
  const onSale = product.comparePrice !== null && Number(product.comparePrice) > Number(product.price);
  return (
    <li className="product-card wishlist-item">
      <a href={shopHref(shop, `/products/${encodeURIComponent(product.slug)}`)}>
        {product.image ? (
          <img src={product.image} alt="" loading="lazy" width={400} height={400} />
        ) : (
          <span className="product-card__placeholder" aria-hidden="true" />
        )}
        <span className="product-card__name">{product.name}</span>
      </a>
      <p className="product-card__price">
        <span>{formatMoney(product.price, currency)}</span>
        {onSale ? (
          <s>
            <span className="visually-hidden">Was </span>
            {formatMoney(product.comparePrice as string, currency)}
          </s>
        ) : null}
        {product.inStock ? null : <span className="badge">Sold out</span>}
      </p>
      <form method="post" action={shopHref(shop, `/account/wishlist/${product.id}/delete`)}>
        <button type="submit" className="secondary wishlist-item__remove">
          Remove<span className="visually-hidden"> {product.name}</span>
        </button>
      </form>
    </li>
  );
}

/** The products the shopper saved for later (the ones still on sale), each with a remove button. */
export function AccountWishlistPage({ shop, data }: { shop: ShopContext; data: WishlistPageData }) {
  return (
    <Frame shop={shop} meta={{ title: 'Your wishlist', description: 'Products you saved.', noindex: true }}>
      <AccountLayout shop={shop} section="wishlist" title="Your wishlist" email={data.email} done={data.done}>
        {data.products.length > 0 ? (
          <ul className="product-grid" aria-label="Saved products">
            {data.products.map((product) => (
              <WishlistItem key={product.id} shop={shop} product={product} />
            ))}
          </ul>
        ) : (
          <div className="card empty">
            <p>Nothing saved yet. Use “Save to wishlist” on a product to keep it here.</p>
            <a className="button" href={shopHref(shop, '/products')}>
              Browse products
            </a>
          </div>
        )}
      </AccountLayout>
    </Frame>
  );
}
