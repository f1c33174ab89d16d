import { AccountLayout } from '../components/account-layout.js';
import { ProductCard, type ProductSummary } from '../components/product-card.js';
import { type ShopContext, shopHref } from '../shop-context.js';

export interface WishlistPageData {
  email: string;
  products: ProductSummary[];
  done?: string;
}

function WishlistItem({ shop, product }: { shop: ShopContext; product: ProductSummary }) {
  return (
    <ProductCard shop={shop} product={product} className="wishlist-item">
      <form method="post" action={shopHref(shop, `/account/wishlist/${product.id}/delete`)}>
        <button type="submit" className="secondary wishlist-item__remove">
          Remove<span className="visually-hidden"> {product.name}</span>
        </button>
      </form>
    </ProductCard>
  );
}

/** The products the shopper saved for later (the ones still on sale), each with a remove button. */
export function AccountWishlistPage({ shop, data }: { shop: ShopContext; data: WishlistPageData }) {
  return (
    <AccountLayout
      shop={shop}
      section="wishlist"
      title="Your wishlist"
      description="Products you saved."
      email={data.email}
      done={data.done}
    >
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
  );
}
