import type { StorefrontCart } from '../../modules/carts/index.js';
import type { PaymentMethod } from '../../modules/payments/index.js';
import { countryName } from '../../platform/iso3166.js';
import { DefaultSubmit, type Details, DetailsFields, DetailsForm } from '../components/checkout-details.js';
import { Frame } from '../components/frame.js';
import { AddressLines, SummaryLines, Totals } from '../components/order-summary.js';
import { type ShippingChoice, ShippingOptions } from '../components/shipping-options.js';
import { formatMoney } from '../money.js';
import { type ShopContext, shopHref } from '../shop-context.js';

export interface CheckoutPageProps {
  shop: ShopContext;
  cart: StorefrontCart;
  /** The payment methods this shop offers here, in the order shown. */
  methods: PaymentMethod[];
  details: Details;
  /** Shipping to the country entered, for a store with zones; null: the flat rate, nothing to choose. */
  shipping: ShippingChoice | null;
  /** Shipping and tax wait for an address (a store with zones or tax regions, a cart without one). */
  byAddress?: boolean;
  /** Why placing the order was refused (declined card, stock gone…). */
  paymentError?: string;
  chosen?: { method: string; cardToken: string };
}

/**
 * Step 1 once the cart has the details: what they are, a way to change them and, with zones, the
 * shipping options of the address (one form, so a change of method is one click without script).
 */
function ShipTo({ shop, cart, details, shipping }: Omit<CheckoutPageProps, 'methods'>) {
  const address = cart.shippingAddress;
  if (!address) return null;
  const summary = (
    <>
      <p>
        <strong>Contact</strong> {cart.email}
      </p>
      <p>
        <strong>Ship to</strong>
      </p>
      <AddressLines address={address} countryName={countryName} />
    </>
  );
  if (!shipping)
    return (
      <div className="checkout-ship-to">
        {summary}
        <details className="checkout-change">
          <summary>Change contact or address</summary>
          <DetailsForm shop={shop} details={details} shipping={null} currency={cart.currency} />
        </details>
      </div>
    );
  return (
    <form method="post" action={shopHref(shop, '/checkout/details')} noValidate data-checkout-details="">
      <DefaultSubmit />
      <div className="checkout-ship-to">
        {summary}
        <details className="checkout-change">
          <summary>Change contact or address</summary>
          <DetailsFields details={details} shipping={shipping} />
          <button type="submit">Continue to payment</button>
        </details>
      </div>
      <ShippingOptions choice={shipping} currency={cart.currency} />
      <button type="submit" className="secondary" data-shipping-save="">
        Use this shipping method
      </button>
    </form>
  );
}

const METHOD_TEXT: Record<PaymentMethod, { label: string; help: string }> = {
  stripe: { label: 'Card', help: 'Enter your card on the next step, in a secure form by Stripe.' },
  test_card: {
    label: 'Test card',
    help: 'This shop runs in development mode: no real money moves. Pick a test card to try the checkout.',
  },
  manual: {
    label: 'Pay later',
    help: 'Place the order now and pay the shop later, as it arranges with you. The order waits for your payment.',
  },
};

function PaymentForm({ shop, cart, methods, chosen, paymentError }: Omit<CheckoutPageProps, 'details'>) {
  const selected = methods.includes(chosen?.method as PaymentMethod) ? chosen?.method : methods[0];
  return (
    <form method="post" action={shopHref(shop, '/checkout')}>
      {paymentError ? (
        <div className="notice notice--error" role="alert">
          <p>{paymentError}</p>
        </div>
      ) : null}
      <fieldset className="payment-methods">
        <legend>Payment method</legend>
        {methods.map((method) => (
          <div key={method} className="payment-method">
            <input
              type="radio"
              id={`payment-${method}`}
              name="paymentMethod"
              value={method}
              defaultChecked={method === selected}
              aria-describedby={`payment-${method}-help`}
            />
            <div>
              <label htmlFor={`payment-${method}`}>{METHOD_TEXT[method].label}</label>
              <p id={`payment-${method}-help`} className="muted">
                {METHOD_TEXT[method].help}
              </p>
              {method === 'test_card' ? (
                <div className="field">
                  <label htmlFor="payment-card-token">Test card to use</label>
                  <select
                    id="payment-card-token"
                    name="cardToken"
                    defaultValue={chosen?.cardToken || 'tok_visa'}
                  >
                    <option value="tok_visa">Visa …4242 (approved)</option>
                    <option value="tok_decline">Visa …0002 (declined)</option>
                  </select>
                </div>
              ) : null}
            </div>
          </div>
        ))}
      </fieldset>
      <button type="submit" className="button--wide">
        Place order · {formatMoney(cart.total, cart.currency)}
      </button>
    </form>
  );
}

/**
 * Checkout in two steps on one page: contact and shipping address (saved on the cart), then, once
 * the cart has them, the totals as they will be charged and the payment methods.
 */
export function CheckoutPage(props: CheckoutPageProps) {
  const { shop, cart } = props;
  // A country the store does not ship to takes no payment (the form says so next to the country).
  const ready = Boolean(cart.email && cart.shippingAddress) && !props.shipping?.refused;
  // The details form stays open until the cart has them, and whenever they were just refused.
  const editing = !ready || Object.keys(props.details.errors).length > 0;
  return (
    <Frame
      shop={shop}
      meta={{
        title: 'Checkout',
        description: `Checkout at ${shop.store.name}.`,
        noindex: true,
        islands: props.shipping ? ['shipping'] : [],
      }}
    >
      <h1>Checkout</h1>
      <div className="checkout-layout">
        <div className="checkout-steps">
          <section className="checkout-step" aria-labelledby="checkout-details">
            <h2 id="checkout-details">
              <span className="checkout-step__number" aria-hidden="true">
                1
              </span>
              Contact and shipping
            </h2>
            {editing || !cart.shippingAddress ? (
              <DetailsForm
                shop={shop}
                details={props.details}
                shipping={props.shipping}
                currency={cart.currency}
              />
            ) : (
              <ShipTo {...props} />
            )}
          </section>
          <section className="checkout-step" id="payment" aria-labelledby="checkout-payment">
            <h2 id="checkout-payment">
              <span className="checkout-step__number" aria-hidden="true">
                2
              </span>
              Payment
            </h2>
            {ready ? (
              props.methods.length > 0 ? (
                <PaymentForm {...props} />
              ) : (
                <p className="notice notice--error">This shop takes no payments at the moment.</p>
              )
            ) : props.shipping?.refused ? (
              <p className="muted">{props.shipping.refused} Payment opens once we can ship your order.</p>
            ) : (
              <p className="muted">
                Enter your contact and shipping details first: then you choose how to pay.
              </p>
            )}
          </section>
        </div>
        <aside className="summary-card" aria-labelledby="checkout-summary">
          <h2 id="checkout-summary">Order summary</h2>
          <SummaryLines lines={cart.items} currency={cart.currency} />
          <Totals totals={cart} byAddress={props.byAddress} />
          <p>
            <a href={shopHref(shop, '/cart')}>Edit cart</a>
          </p>
        </aside>
      </div>
    </Frame>
  );
}
