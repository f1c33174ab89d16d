import { Frame } from '../components/frame.js';
import { type ShopContext, shopHref } from '../shop-context.js';

/** After a sign-up: the same words whether or not the address was signed up already. */
export function NotifyMeSentPage({
  shop,
  product,
  variant,
}: {
  shop: ShopContext;
  product: { name: string; slug: string };
  /** The title of the variant signed up for, if one was. */
  variant?: string;
}) {
  return (
    <Frame
      shop={shop}
      meta={{
        title: `${product.name}: we'll let you know`,
        description: `We'll email you when ${product.name} is back in stock.`,
        noindex: true,
      }}
    >
      <section className="auth-card notify-me-sent">
        <h1>You're on the list</h1>
        <p className="notice notice--success" role="status">
          We'll email you when it's back in stock.
        </p>
        <p>
          <strong>{variant ? `${product.name} (${variant})` : product.name}</strong> is sold out for now. We
          will send one e-mail as soon as it is back, and nothing else.
        </p>
        <p>
          <a href={shopHref(shop, `/products/${encodeURIComponent(product.slug)}`)}>Back to {product.name}</a>
          {' · '}
          <a href={shopHref(shop, '/products')}>Keep shopping</a>
        </p>
      </section>
    </Frame>
  );
}
