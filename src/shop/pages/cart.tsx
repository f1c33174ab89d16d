import type { StorefrontCart } from '../../modules/carts/index.js';
import { Frame } from '../components/frame.js';
import { Totals } from '../components/order-summary.js';
import { formatMoney } from '../money.js';
import { type ShopContext, shopHref } from '../shop-context.js';

/** A message about the shopper's last action, shown at the top of the cart. */
export interface CartNotice {
  kind: 'error' | 'success';
  text: string;
  /** Where to go to fix it (the product that could not be added). */
  link?: { href: string; label: string };
}

export interface CartPageProps {
  shop: ShopContext;
  cart: StorefrontCart | null;
  notice?: CartNotice;
  /** Why the coupon just entered does not apply, and the code as entered. */
  coupon?: { error: string; code: string };
  /** Shipping and tax wait for an address (a store with zones or tax regions). */
  byAddress?: boolean;
}

type CartLine = StorefrontCart['items'][number];

function LineRow({ shop, line, currency }: { shop: ShopContext; line: CartLine; currency: string }) {
  const action = shopHref(shop, `/cart/items/${encodeURIComponent(line.id)}`);
  const label = line.variantTitle ? `${line.name} (${line.variantTitle})` : line.name;
  const inputId = `quantity-${line.id}`;
  return (
    <li className="cart-line">
      {line.image ? (
        <img className="cart-line__image" src={line.image} alt="" width={96} height={96} />
      ) : (
        <span className="cart-line__image cart-line__image--none" aria-hidden="true" />
      )}
      <div className="cart-line__info">
        <h3 className="cart-line__name">{line.name}</h3>
        {line.variantTitle ? <p className="cart-line__variant">{line.variantTitle}</p> : null}
        <p className="cart-line__price">
          {formatMoney(line.price, currency)} <span className="muted">each</span>
        </p>
        {line.inStock ? null : <p className="badge">Not enough in stock: lower the quantity to check out</p>}
      </div>
      <form className="cart-line__quantity" method="post" action={action} data-cart-quantity="">
        <label htmlFor={inputId}>
          Quantity <span className="visually-hidden">of {label}</span>
        </label>
        <div className="cart-line__controls">
          <input
            id={inputId}
            type="number"
            name="quantity"
            inputMode="numeric"
            min={0}
            max={10000}
            defaultValue={line.quantity}
          />
          <button type="submit" className="secondary" aria-label={`Update quantity of ${label}`}>
            Update
          </button>
          <button
            type="submit"
            className="cart-link-button"
            formAction={`${action}/remove`}
            aria-label={`Remove ${label}`}
          >
            Remove
          </button>
        </div>
      </form>
      <p className="cart-line__total">
        <span className="visually-hidden">Line total: </span>
        {formatMoney(line.total, currency)}
      </p>
    </li>
  );
}

function CouponForm({
  shop,
  cart,
  coupon,
}: Pick<CartPageProps, 'shop' | 'coupon'> & { cart: StorefrontCart }) {
  if (cart.couponCode)
    return (
      <form className="coupon coupon--applied" method="post" action={shopHref(shop, '/cart/coupon/remove')}>
        <p>
          Coupon <strong>{cart.couponCode}</strong> applied.
        </p>
        <button type="submit" className="cart-link-button">
          Remove coupon
        </button>
      </form>
    );
  return (
    <form className="coupon" method="post" action={shopHref(shop, '/cart/coupon')}>
      <label htmlFor="coupon-code">Coupon code</label>
      <div className="coupon__row">
        <input
          id="coupon-code"
          name="code"
          autoComplete="off"
          maxLength={100}
          required
          defaultValue={coupon?.code}
          aria-invalid={coupon ? true : undefined}
          aria-describedby={coupon ? 'coupon-error' : undefined}
        />
        <button type="submit" className="secondary">
          Apply
        </button>
      </div>
      {coupon ? (
        <p id="coupon-error" className="field-error" role="alert">
          {coupon.error}
        </p>
      ) : null}
    </form>
  );
}

/** The cart: its lines with quantities to change, a coupon, the totals and the way to checkout. */
export function CartPage({ shop, cart, notice, coupon, byAddress }: CartPageProps) {
  const lines = cart?.items ?? [];
  const blocked = lines.some((line) => !line.inStock);
  return (
    <Frame
      shop={shop}
      meta={{
        title: 'Your cart',
        description: `Your cart at ${shop.store.name}.`,
        noindex: true,
        islands: ['cart'],
      }}
    >
      <h1>Your cart</h1>
      {notice ? (
        <div className={`notice notice--${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
          <p>{notice.text}</p>
          {notice.link ? (
            <p>
              <a href={notice.link.href}>{notice.link.label}</a>
            </p>
          ) : null}
        </div>
      ) : null}
      {!cart || lines.length === 0 ? (
        <section className="cart-empty">
          <p>Your cart is empty.</p>
          <p>
            <a className="button" href={shopHref(shop, '/products')}>
              Browse products
            </a>
          </p>
        </section>
      ) : (
        <div className="cart-layout">
          <section aria-labelledby="cart-items">
            <h2 id="cart-items" className="visually-hidden">
              Items
            </h2>
            <p className="muted">
              {cart.itemCount} {cart.itemCount === 1 ? 'item' : 'items'}
            </p>
            <ul className="cart-lines">
              {lines.map((line) => (
                <LineRow key={line.id} shop={shop} line={line} currency={cart.currency} />
              ))}
            </ul>
            <p>
              <a href={shopHref(shop, '/products')}>← Continue shopping</a>
            </p>
          </section>
          <aside className="summary-card" aria-labelledby="cart-summary">
            <h2 id="cart-summary">Order summary</h2>
            <CouponForm shop={shop} cart={cart} coupon={coupon} />
            <Totals totals={cart} byAddress={byAddress} />
            {blocked ? (
              <p className="notice notice--error">Some items are not in stock in the quantity you chose.</p>
            ) : (
              <a className="button button--wide" href={shopHref(shop, '/checkout')}>
                Checkout
              </a>
            )}
          </aside>
        </div>
      )}
    </Frame>
  );
}
